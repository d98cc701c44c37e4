import { describeAnswer, sameAnswer, type Answer, type Scenario } from './scenario';

/** A token on which svcgate and its oracle disagree, with what is needed to make it again. */
export interface Divergence {
  category: string;
  scenario: string;
  /** What the token is, in words: a named trick, or the generated recipe. */
  recipe: string;
  token: string;
  expected: string;
  actual: string;
  /** How many tokens diverged the same way (same category, scenario, trick and answers). */
  times: number;
}

/**
 * A token's name, and for generated tokens the recipe, written only when the token diverges
 * (writing each of 100,000 recipes would cost more than comparing them).
 */
export type Recipe = string | { name: string; detail?: () => string; again?: boolean };

function named(recipe: Recipe): { name: string; detail?: () => string; again?: boolean } {
  return typeof recipe === 'string' ? { name: recipe } : recipe;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/**
 * Makes a token at the current second and asks for its answers. jose reads the clock itself, so
 * when the second changed before the last answer, the token is made and asked again.
 */
async function withinOneSecond(make: (now: number) => string, ask: (token: string) => Promise<Answer[]>): Promise<{ token: string; answers: Answer[] }> {
  for (let attempt = 0; ; attempt += 1) {
    const now = nowSeconds();
    const token = make(now);
    const answers = await ask(token);
    if (nowSeconds() === now || attempt >= 5) return { token, answers };
  }
}

/**
 * Runs tokens through svcgate and the oracle, counts accepts and refusals per category, and keeps
 * the divergences, one per kind, for a report that shows every kind at once.
 */
export class ComparisonLog {
  private readonly counts = new Map<string, { accepted: number; refused: number }>();
  private readonly kinds = new Map<string, Divergence>();

  /** Compares one token made by `make` at the current second. */
  async compare(category: string, scenario: Scenario, recipe: Recipe, make: (now: number) => string): Promise<Answer> {
    const { token, answers } = await withinOneSecond(make, async (made) => [await scenario.actual(made), await scenario.expected(made)]);
    const [actual, expected] = answers as [Answer, Answer];
    this.record(category, scenario, recipe, token, expected, actual);
    return expected;
  }

  /**
   * With svcgate's cache on: the token is answered twice by svcgate, and both answers must be the
   * oracle's (the second may come from the cache).
   */
  async compareTwice(category: string, scenario: Scenario, recipe: Recipe, make: (now: number) => string): Promise<void> {
    const { token, answers } = await withinOneSecond(make, async (made) => [await scenario.actual(made), await scenario.actual(made), await scenario.expected(made)]);
    const [first, second, expected] = answers as [Answer, Answer, Answer];
    this.record(category, scenario, recipe, token, expected, first);
    this.record(category, scenario, { ...named(recipe), again: true }, token, expected, second);
  }

  /**
   * With svcgate's cache on: each token is answered in one second and again in the next, and each
   * answer must be the one jose gives in that second (a cached answer must not outlive jose's).
   * The whole batch waits for the next second once.
   */
  async compareInTwoSeconds(category: string, batch: readonly { scenario: Scenario; recipe: Recipe; make: (now: number) => string }[]): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      const made = nowSeconds();
      const rounds: [Answer, Answer][][] = [[], []];
      const tokens = batch.map(({ make }) => make(made));
      for (const [round, second] of [made, made + 1].entries()) {
        while (nowSeconds() < second) await new Promise((resolve) => setTimeout(resolve, 20));
        for (const [index, { scenario }] of batch.entries()) rounds[round]!.push([await scenario.expected(tokens[index]!), await scenario.actual(tokens[index]!)]);
        if (nowSeconds() !== second) break;
      }
      if (rounds[1]!.length < batch.length && attempt < 5) continue;
      for (const [index, { scenario, recipe }] of batch.entries()) {
        for (const [round, answers] of rounds.entries()) {
          const [expected, actual] = answers[index] ?? [];
          if (expected !== undefined && actual !== undefined) this.record(category, scenario, { ...named(recipe), again: round === 1 }, tokens[index]!, expected, actual);
        }
      }
      return;
    }
  }

  /** Records an answer svcgate gave for a token whose right answer is known without jose. */
  record(category: string, scenario: Scenario, recipe: Recipe, token: string, expected: Answer, actual: Answer): void {
    const count = this.counts.get(category) ?? { accepted: 0, refused: 0 };
    if (expected.accepted) count.accepted += 1;
    else count.refused += 1;
    this.counts.set(category, count);
    if (sameAnswer(expected, actual)) return;
    const shownExpected = describeAnswer(expected);
    const shownActual = describeAnswer(actual);
    // Payloads differ token by token; the kind is the outcome and the refusal.
    const { name, detail, again } = named(recipe);
    const kind = [category, scenario.spec.name, name, again === true, expected.accepted ? 'accepted' : shownExpected, actual.accepted ? 'accepted' : shownActual].join('|');
    const known = this.kinds.get(kind);
    if (known !== undefined) known.times += 1;
    else this.kinds.set(kind, { category, scenario: scenario.spec.name, recipe: `${name}${again === true ? ', answered a second time (cache on)' : ''}${detail === undefined ? '' : ` ${detail()}`}`, token: token.length > 400 ? `${token.slice(0, 400)}... (${token.length} characters)` : token, expected: shownExpected, actual: shownActual, times: 1 });
  }

  /** svcgate refused a configuration that jose verifies tokens with: a divergence of its own. */
  configurationRefused(category: string, scenario: string, error: unknown): void {
    const actual = `configuration refused: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
    this.kinds.set(`${category}|${scenario}|configuration`, { category, scenario, recipe: 'the configuration', token: '', expected: 'jose verifies tokens with these options', actual, times: 1 });
  }

  get divergences(): Divergence[] {
    return [...this.kinds.values()];
  }

  get total(): number {
    let total = 0;
    for (const { accepted, refused } of this.counts.values()) total += accepted + refused;
    return total;
  }

  /** Per category: tokens, accepted and refused (by the oracle's answer). */
  get table(): Record<string, { tokens: number; accepted: number; refused: number }> {
    return Object.fromEntries([...this.counts].map(([category, { accepted, refused }]) => [category, { tokens: accepted + refused, accepted, refused }]));
  }

  report(divergences: readonly Divergence[], limit = 40): string {
    const shown = divergences.slice(0, limit).map(
      (divergence, index) =>
        `#${index + 1} [${divergence.category} / ${divergence.scenario}] ${divergence.recipe} (x${divergence.times})\n  token: ${divergence.token}\n  svcgate: ${divergence.actual}\n  jose:    ${divergence.expected}`,
    );
    const more = divergences.length > limit ? [`... and ${divergences.length - limit} more kinds`] : [];
    return [...shown, ...more].join('\n');
  }
}

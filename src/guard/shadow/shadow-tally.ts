import type { DecisionChange } from '../../policy/evaluate/decision-change';
import type { ShadowCounts, ShadowExample, ShadowStatus } from './shadow-options';

/** Role sets named in `byRole` at most; past it tokens with new role claims are counted together. */
export const MAX_ROLE_KEYS = 64;
export const OTHER_ROLES = '(other roles)';
/** Divergences kept as examples. */
export const MAX_EXAMPLES = 10;
/** Longest candidate error message kept: a candidate's errors may carry whole answers, and status() copies it at each call. */
const MAX_ERROR_LENGTH = 500;

type Counted = Pick<ShadowStatus, 'compared' | 'divergences' | 'changes' | 'unavailable' | 'errors' | 'skipped' | 'byOperation' | 'byRole' | 'examples' | 'lastError'>;

/** The shadow's counters; every table in it is bounded (operations are the document's, roles capped). */
export class ShadowTally {
  private readonly counted: Counted = {
    compared: 0,
    divergences: 0,
    changes: { widened: 0, narrowed: 0, changed: 0 },
    unavailable: 0,
    errors: 0,
    skipped: { sampling: 0, rate: 0, busy: 0, undecided: 0 },
    byOperation: Object.create(null) as Record<string, ShadowCounts>,
    byRole: Object.create(null) as Record<string, ShadowCounts>,
    examples: [],
    lastError: null,
  };
  private roleKeys = 0;

  skipped(reason: keyof Counted['skipped']): void {
    this.counted.skipped[reason] += 1;
  }

  /** `reason`: the candidate's first reason, so that the status says why it could not decide. */
  unavailable(reason: string | undefined): void {
    this.counted.unavailable += 1;
    this.noted(`the candidate could not decide: ${reason ?? 'no reason given'}`);
  }

  failed(message: string): void {
    this.counted.errors += 1;
    this.noted(message);
  }

  private noted(message: string): void {
    this.counted.lastError = { message: message.length > MAX_ERROR_LENGTH ? `${message.slice(0, MAX_ERROR_LENGTH)}…` : message, at: new Date().toISOString() };
  }

  /** A comparison; `change` undefined when both decided the same. */
  compared(operation: string, role: string, change: DecisionChange | undefined): void {
    const counted = this.counted;
    counted.compared += 1;
    const rows = [row(counted.byOperation, operation), row(counted.byRole, this.roleKey(role))];
    for (const counts of rows) counts.compared += 1;
    if (change === undefined) return;
    counted.divergences += 1;
    counted.changes[change] += 1;
    for (const counts of rows) {
      counts.divergences += 1;
      counts[change] += 1;
    }
  }

  /** Whether another example is wanted: asked before one is built, so that a flood of divergences builds none. */
  wantsExample(): boolean {
    return this.counted.examples.length < MAX_EXAMPLES;
  }

  example(example: ShadowExample): void {
    if (this.wantsExample()) this.counted.examples.push(example);
  }

  /** A copy: the caller may keep or change it. */
  snapshot(): Counted {
    return structuredClone(this.counted);
  }

  private roleKey(role: string): string {
    if (Object.hasOwn(this.counted.byRole, role)) return role;
    if (this.roleKeys >= MAX_ROLE_KEYS) return OTHER_ROLES;
    this.roleKeys += 1;
    return role;
  }
}

function row(table: Record<string, ShadowCounts>, key: string): ShadowCounts {
  // Keys come from tokens and the document: a null-prototype table, so `__proto__` is a role like any other.
  return (table[key] ??= { compared: 0, divergences: 0, widened: 0, narrowed: 0, changed: 0 });
}

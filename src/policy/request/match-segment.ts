/**
 * One segment of an OpenAPI path template: literal text and `{parameters}`, such as `users`,
 * `{userId}`, `{name}.json` or `{year}-{month}-{day}`. Literal text is kept in lower case, as
 * Express matches routes in any letter case.
 */
export interface SegmentPattern {
  /** The literal pieces around and between the parameters: `names.length + 1` of them. */
  literals: string[];
  names: string[];
}

/** Splits a template segment into its literals and parameter names. */
export function compileSegment(template: string): SegmentPattern {
  const literals: string[] = [];
  const names: string[] = [];
  let rest = template;
  for (let open = rest.indexOf('{'); open !== -1; open = rest.indexOf('{')) {
    const close = rest.indexOf('}', open);
    literals.push(rest.slice(0, open).toLowerCase());
    names.push(rest.slice(open + 1, close));
    rest = rest.slice(close + 1);
  }
  literals.push(rest.toLowerCase());
  return { literals, names };
}

/**
 * The raw parameter values of one path segment, cut from `path` at `offset` as sent (still
 * percent-encoded; `lower` is the segment in lower case), undefined when the segment does not match, or 'ambiguous' when it matches with more than one split. Express
 * splits `{a}-{b}` from the right and other routers from the left; where the leftmost and the
 * rightmost splits agree, every router reads the same values. Each search is an indexOf or a
 * lastIndexOf that moves on, so the cost is linear in the segment's length.
 */
export function matchSegment(pattern: SegmentPattern, lower: string, path: string, offset: number): string[] | 'ambiguous' | undefined {
  const { literals, names } = pattern;
  if (names.length === 0) return lower === literals[0] ? [] : undefined;
  const prefix = literals[0]!;
  const suffix = literals[literals.length - 1]!;
  if (!lower.startsWith(prefix) || !lower.endsWith(suffix)) return undefined;
  const start = prefix.length;
  const end = lower.length - suffix.length;
  if (end - start < names.length) return undefined;
  const left = leftmostSplit(lower, literals, start, end);
  if (left === undefined) return undefined;
  const right = rightmostSplit(lower, literals, start, end)!;
  if (left.some((position, index) => position !== right[index])) return 'ambiguous';
  const cut = (from: number, to: number) => path.slice(offset + from, offset + to);
  const values = names.map((_name, index) => cut(index === 0 ? start : left[index - 1]! + literals[index]!.length, index === names.length - 1 ? end : left[index]!));
  // Even a unique split is refused when a value holds a separator: Express 4 would not match
  // `-` as a month in `{year}-{month}-{day}`, Express 5 would.
  const inner = literals.slice(1, -1);
  return values.some((value) => inner.some((literal) => value.toLowerCase().includes(literal))) ? 'ambiguous' : values;
}

/** Where each inner literal starts, taking the first place that leaves every value non-empty. */
function leftmostSplit(text: string, literals: string[], start: number, end: number): number[] | undefined {
  const positions: number[] = [];
  let from = start;
  for (let index = 1; index < literals.length - 1; index++) {
    const at = text.indexOf(literals[index]!, from + 1);
    if (at === -1 || at + literals[index]!.length >= end) return undefined;
    positions.push(at);
    from = at + literals[index]!.length;
  }
  return from < end ? positions : undefined;
}

/** The same, from the right: the last place that leaves every value non-empty. */
function rightmostSplit(text: string, literals: string[], start: number, end: number): number[] | undefined {
  const positions: number[] = [];
  let to = end;
  for (let index = literals.length - 2; index >= 1; index--) {
    const literal = literals[index]!;
    const at = text.lastIndexOf(literal, to - 1 - literal.length);
    if (at === -1 || at <= start) return undefined;
    positions.unshift(at);
    to = at;
  }
  return positions;
}

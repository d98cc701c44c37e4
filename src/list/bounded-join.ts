/** The most operands one AND or OR chain gets before they are grouped in parentheses. */
const MAX_CHAIN = 64;

/**
 * Operands joined with AND or OR. SQLite parses `a OR b OR c` into a tree as deep as the chain is long and refuses
 * trees deeper than 1000 ("Expression tree is too large"); a plan with thousands of entries is grouped by 64 in
 * parentheses, level by level, so the depth grows with the logarithm of the count. Short chains read as written.
 */
export function boundedJoin(operator: 'AND' | 'OR', operands: readonly string[]): string {
  let level = [...operands];
  while (level.length > MAX_CHAIN) {
    const grouped: string[] = [];
    for (let start = 0; start < level.length; start += MAX_CHAIN) {
      const group = level.slice(start, start + MAX_CHAIN);
      grouped.push(group.length === 1 ? group[0]! : `(${group.join(` ${operator} `)})`);
    }
    level = grouped;
  }
  return level.join(` ${operator} `);
}

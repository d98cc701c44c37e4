/** OPA's mask rules: a JSON pointer to erase, or an operation that replaces the value there. */
export type MaskRule = string | { op: 'remove'; path: string } | { op: 'upsert'; path: string; value: unknown };

/**
 * Applies the mask rules to a copy of `event`, as OPA's `system.log.mask` does: the pointers
 * removed are listed in `erased`, those replaced in `masked`. A pointer to nothing is skipped.
 */
export function maskEvent(event: object, rules: readonly MaskRule[]): Record<string, unknown> {
  const copy = structuredClone(event) as Record<string, unknown>;
  const erased: string[] = [];
  const masked: string[] = [];
  for (const rule of isContainer(copy.shadow) ? rules.flatMap(withShadowResult) : rules) {
    const { op, path } = typeof rule === 'string' ? { op: 'remove' as const, path: rule } : rule;
    const names = path.slice(1).split('/').map((name) => name.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = names.pop()!;
    const parent = names.reduce<unknown>((value, name) => (isContainer(value) && Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined), copy);
    if (!isContainer(parent)) continue;
    if (op === 'upsert') {
      (parent as Record<string, unknown>)[last] = (rule as { value: unknown }).value;
      masked.push(path);
    } else if (Object.hasOwn(parent, last)) {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete (parent as Record<string, unknown>)[last];
      erased.push(path);
    }
  }
  if (erased.length > 0) copy.erased = erased;
  if (masked.length > 0) copy.masked = masked;
  return copy;
}

/**
 * A shadow divergence event (the adapters' `shadow` option) holds a second result, the candidate's,
 * at `/shadow/result`: the same kind of data (a list plan's claim values), so a rule under
 * `/result` erases or replaces it there too.
 */
function withShadowResult(rule: MaskRule): MaskRule[] {
  const path = typeof rule === 'string' ? rule : rule.path;
  if (path !== '/result' && !path.startsWith('/result/')) return [rule];
  const shadowPath = `/shadow${path}`;
  return [rule, typeof rule === 'string' ? shadowPath : { ...rule, path: shadowPath }];
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

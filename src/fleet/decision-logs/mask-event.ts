import { z } from 'zod';

/** OPA's mask rules: a JSON pointer to erase, or an operation that replaces the value there. */
export type MaskRule = string | { op: 'remove'; path: string } | { op: 'upsert'; path: string; value: unknown };

/** RFC 6901: `/input/claims`, with `~1` for `/` and `~0` for `~` inside a name (`/input/params/path:userId`). */
export const pointerSchema = z
  .string()
  .regex(/^(\/([^~]|~[01])*)+$/, { error: 'a mask is a JSON pointer such as /input/claims (~1 for / and ~0 for ~ inside a name)' })
  .refine((pointer) => pointer.startsWith('/input/') || pointer.startsWith('/result/') || pointer === '/input' || pointer === '/result', {
    error: 'a mask points inside /input or /result, the parts of an event that hold request data',
  })
  .refine((pointer) => !pointer.split('/').includes('__proto__'), { error: 'a mask cannot name __proto__' });

export const maskRuleSchema = z.union([
  pointerSchema,
  z.object({ op: z.literal('remove'), path: pointerSchema }).strict(),
  z.object({ op: z.literal('upsert'), path: pointerSchema, value: z.unknown() }).strict(),
]);

/**
 * Applies the mask rules to a copy of `event`, as OPA's `system.log.mask` does: the pointers
 * removed are listed in `erased`, those replaced in `masked`. A pointer to nothing is skipped.
 */
export function maskEvent(event: object, rules: readonly MaskRule[]): Record<string, unknown> {
  const copy = structuredClone(event) as Record<string, unknown>;
  const erased: string[] = [];
  const masked: string[] = [];
  for (const rule of rules) {
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

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

import fc from 'fast-check';
import { decisionKey } from '../../src/policy/evaluate/decision-key';
import type { PolicyInput } from '../../src/policy';

// Strings made of the characters the key itself uses for lengths, counts and tags, so that a key
// format that could be read two ways would be found.
const tricky = fc.string({ unit: fc.constantFrom('1', '2', '0', ':', '#', 'u', 's', 'a', 'j', 'o', 'n', 't', 'f', '"'), maxLength: 6 });
const lists = <T extends string | null>(item: fc.Arbitrary<T>) => fc.dictionary(tricky, fc.array(item, { maxLength: 3 }), { maxKeys: 3 });
const input: fc.Arbitrary<PolicyInput> = fc.record(
  {
    operation: tricky,
    role: fc.oneof(tricky, fc.array(tricky, { maxLength: 3 }), fc.constantFrom(7, null, true, { role: 'admin' }, ['admin', 1])),
    params: lists(fc.option(tricky, { nil: null })),
    claims: lists(tricky),
    checks: fc.dictionary(tricky, fc.boolean(), { maxKeys: 3 }),
    scopes: fc.array(tricky, { maxLength: 3 }),
  },
  { requiredKeys: ['operation'] },
);

describe('decisionKey', () => {
  test('reads back into the very input it was made from, so two different inputs never share a key', () => {
    fc.assert(
      fc.property(input, (value) => {
        const key = decisionKey(value);
        expect(key).toBeDefined();
        expect(readKey(key!)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 2000 },
    );
  });

  test('inputs whose JSON text might not follow from the key are not keyed', () => {
    const base: PolicyInput = { operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['3'] } };
    class Params {
      'path:userId' = ['3'];
    }
    const withToJson = Object.assign(['3'], { toJSON: () => ['4'] });
    expect(decisionKey(base)).toBeDefined();
    expect(decisionKey({ ...base, params: new Params() as unknown as Record<string, string[]> })).toBeUndefined();
    expect(decisionKey({ ...base, params: { 'path:userId': withToJson } })).toBeUndefined();
    expect(decisionKey({ ...base, params: { 'path:userId': undefined as unknown as string[] } })).toBeUndefined();
    expect(decisionKey({ ...base, claims: { 'path:userId': [null as unknown as string] } })).toBeUndefined();
    expect(decisionKey({ ...base, checks: { 'path:userId': 'yes' as unknown as boolean } })).toBeUndefined();
    expect(decisionKey({ ...base, scopes: [7 as unknown as string] })).toBeUndefined();
    expect(decisionKey({ ...base, scopes: { 0: 'a' } as unknown as string[] })).toBeUndefined();
    expect(decisionKey({ ...base, role: new Date(0) })).toBeUndefined();
    expect(decisionKey({ ...base, operation: 7 as unknown as string })).toBeUndefined();
  });
});

/** The inverse of decisionKey, written from its format: tags, `<count>#` and `<length>:<text>`. */
function readKey(key: string): unknown {
  let at = 0;
  const number = (end: string): number => {
    const stop = key.indexOf(end, at);
    const value = Number(key.slice(at, stop));
    at = stop + 1;
    return value;
  };
  const text = (): string => {
    const length = number(':');
    at += length;
    return key.slice(at - length, at);
  };
  const tag = (): string => key[at++]!;
  const record = <T>(item: () => T): Record<string, T> | undefined => {
    if (tag() === 'u') return undefined;
    const result: Record<string, T> = {};
    for (let entries = number('#'); entries > 0; entries--) {
      const name = text();
      result[name] = item();
    }
    return result;
  };
  const list = (): (string | null)[] => Array.from({ length: number('#') }, () => (key[at] === 'n' ? (at++, null) : text()));

  const result: Record<string, unknown> = { operation: text() };
  const roleTag = tag();
  if (roleTag === 's') result.role = text();
  else if (roleTag === 'a') result.role = Array.from({ length: number('#') }, text);
  else if (roleTag === 'j') result.role = JSON.parse(text());
  const params = record(list);
  const claims = record(list);
  const checks = record(() => tag() === 't');
  const scopes = key[at] === 'u' ? (at++, undefined) : list();
  if (params) result.params = params;
  if (claims) result.claims = claims;
  if (checks) result.checks = checks;
  if (scopes) result.scopes = scopes;
  expect(at).toBe(key.length);
  return result;
}

import { compileAcl, createOperationMatcher, decide, Evaluator } from '../../src/policy';
import * as attributeGlob from '../../src/policy/attributes/attribute-glob';

// The union of attribute lists along $extend (issue 29, 5) is worked out for every role at compile
// time, over the lists of every role it extends. A long chain of roles that repeat one list of
// negations (an ACL in a pull request that `svcgate audit` reads in CI, or just a large one) made
// that work cubic in the chain's length and quadratic in the list's: 100 roles of 21 globs took
// 2.6 s, 300 roles of 31 would take minutes. Bounded here without timing: the checks of one list
// against a path (showsPath) are counted, and may not exceed the globs the unions read, one check
// per glob (before: every negation met every other list, 427,000 checks for 40 roles of 21).
const OPENAPI = {
  openapi: '3.0.3',
  info: { title: 'chain', version: '1' },
  security: [{ bearer: [] }],
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  paths: { '/records': { get: { responses: { 200: { description: 'ok' } } } } },
};

function chain(roles: number, list: (role: number) => string[]): Record<string, unknown> {
  const acl: Record<string, unknown> = { anonymous: {} };
  for (let i = 0; i < roles; i++) acl[`r${i}`] = { '/records': { 'read:any': list(i) }, ...(i > 0 ? { $extend: [`r${i - 1}`] } : {}) };
  return acl;
}

async function attributesOf(acl: Record<string, unknown>, role: string): Promise<readonly string[]> {
  const data = compileAcl({ openapi: OPENAPI, acl, scheme: 'bearer' });
  const found = createOperationMatcher(data.operations)('GET', '/records')!;
  const { decision } = await decide(Evaluator.createSync(data, { decisionCacheSize: 0 }), found.key, found.operation, { pathParams: {} }, { role });
  expect(decision.allow).toBe(true);
  return decision.attributes;
}

const NEGATIONS = Array.from({ length: 30 }, (_, k) => `!field${k}`);

function checksDuring(work: () => Promise<void>): Promise<number> {
  const spy = jest.spyOn(attributeGlob, 'showsPath');
  return work()
    .then(() => spy.mock.calls.length)
    .finally(() => spy.mockRestore());
}

/** What the unions of a chain read: each role unites its own list with those of every role before it. */
function globsRead(roles: number, list: (role: number) => string[]): number {
  let total = 0;
  for (let i = 0, reach = 0; i < roles; i++) total += reach += list(i).length;
  return total;
}

test('a chain of 40 roles that repeat one list of 20 negations checks each glob at most once', async () => {
  const list = () => ['*', ...NEGATIONS.slice(0, 20)];
  const checks = await checksDuring(async () => {
    expect(await attributesOf(chain(40, list), 'r39')).toEqual(list().sort());
  });
  expect(checks).toBeLessThanOrEqual(globsRead(40, list));
});

test('a chain of 300 roles that repeat one list of 30 negations compiles, and the last role sees what that list shows', async () => {
  const attributes = await attributesOf(chain(300, () => ['*', ...NEGATIONS]), 'r299');
  expect(attributes).toEqual([...NEGATIONS, '*'].sort());
}, 60_000);

test('along a chain, a negation no other role shows is kept, and one another role shows is dropped', async () => {
  // Role i shows a<i> but not a<i>.secret; the last role also shows a3.secret.
  const list = (i: number) => [`a${i}`, `!a${i}.secret`, ...(i === 119 ? ['a3.secret'] : [])];
  const expected = Array.from({ length: 120 }, (_, i) => [`a${i}`, ...(i === 3 ? [] : [`!a${i}.secret`])]).flat();
  const checks = await checksDuring(async () => {
    expect(await attributesOf(chain(120, list), 'r119')).toEqual([...expected, 'a3.secret'].sort());
  });
  expect(checks).toBeLessThanOrEqual(globsRead(120, list));
}, 60_000);

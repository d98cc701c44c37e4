import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileAcl, createOperationMatcher, decide, Evaluator } from '../../src/policy';
import { cellGrants } from '../../src/policy/compile/grant-table';
import { OPA } from '../helpers/opa-server';

// A caller with several roles sees the union of their lists, worked out by the policy on every
// request it does not find in the decision cache (issue 29, 5). Every negation of one role was
// compared with every glob of every other role: two roles of 81 globs cost the real opa 196,330
// evaluation steps (38 before the union), and two roles of a $extend chain, 330 globs each,
// 1,852,850; two roles of 301 that each hide 300 other fields, 2,541,022; policy.wasm took
// minutes and gigabytes on two of 1,050 from a chain. The steps are counted with
// opa's profiler (no timing), and may not exceed 40 per glob of the caller's lists (now 15 to 36).
const ROOT = join(__dirname, '..', '..');
const POLICY = join(ROOT, 'policies', 'authz.rego');
const OPENAPI = {
  openapi: '3.0.3',
  info: { title: 'union', version: '1' },
  security: [{ bearer: [] }],
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  paths: { '/records': { get: { responses: { 200: { description: 'ok' } } } } },
};
const STEPS_PER_GLOB = 40;

/**
 * Role i shows a<i> and hides `count` fields below it (with `everything`: shows every field but
 * `count` of its own); with `chain`, each role extends the one before.
 */
function acl(roles: number, count: number, chain: boolean, everything = false): Record<string, unknown> {
  const declaration: Record<string, unknown> = { anonymous: {} };
  for (let i = 0; i < roles; i++) {
    const list = everything ? ['*', ...Array.from({ length: count }, (_, k) => `!f${i}_${k}`)] : [`a${i}`, ...Array.from({ length: count }, (_, k) => `!a${i}.s${k}`)];
    declaration[`r${i}`] = { '/records': { 'read:any': list }, ...(chain && i > 0 ? { $extend: [`r${i - 1}`] } : {}) };
  }
  return declaration;
}

function profiled(data: unknown, input: unknown): { steps: number; attributes: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-union-'));
  writeFileSync(join(dir, 'data.json'), JSON.stringify({ svcgate: { acl: data } }));
  writeFileSync(join(dir, 'input.json'), JSON.stringify(input));
  const args = ['eval', '-d', POLICY, '-d', join(dir, 'data.json'), '-i', join(dir, 'input.json'), '--profile', '--format=json', 'data.svcgate.authz.decision'];
  const output = JSON.parse(execFileSync(OPA, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as {
    profile: { num_eval: number }[];
    result: { expressions: { value: { attributes: string[] } }[] }[];
  };
  return { steps: output.profile.reduce((sum, line) => sum + line.num_eval, 0), attributes: output.result[0]!.expressions[0]!.value.attributes };
}

test.each([
  ['two roles of 81 globs', acl(2, 80, false), ['r0', 'r1']],
  ['two roles of a $extend chain, 330 globs each', acl(30, 10, true), ['r29', 'r28']],
  ['two roles that show everything but 300 fields each, other ones', acl(2, 300, false, true), ['r0', 'r1']],
])('%s: the union costs the policy a bounded number of steps per glob, and opa and policy.wasm agree on it', (_name, declaration, roles) => {
  const data = compileAcl({ openapi: OPENAPI, acl: declaration, scheme: 'bearer' });
  const input = { operation: 'GET /records', role: roles };
  const globs = roles.reduce((sum, role) => sum + cellGrants(data, data.operations[input.operation]!.grants, role)!.any!.length, 0);
  const { steps, attributes } = profiled(data, input);
  expect(attributes).toEqual(Evaluator.createSync(data, { decisionCacheSize: 0 }).evaluate(input).attributes);
  // Nothing of the lists is lost: every role shows its own a<i> (or everything).
  expect(attributes).toEqual(expect.arrayContaining(attributes.includes('*') ? ['*'] : roles.map((role) => `a${role.slice(1)}`)));
  expect(steps).toBeLessThanOrEqual(STEPS_PER_GLOB * globs);
}, 60_000);

test('a role claim that names its roles many times is read as each role once: the policy unites two lists, not 200', async () => {
  const data = compileAcl({ openapi: OPENAPI, acl: acl(2, 20, false), scheme: 'bearer' });
  const found = createOperationMatcher(data.operations)('GET', '/records')!;
  const role = Array.from({ length: 200 }, (_, i) => `r${i % 2}`);
  const { decision, input } = await decide(Evaluator.createSync(data, { decisionCacheSize: 0 }), found.key, found.operation, { pathParams: {} }, { role });
  expect(input.role).toEqual(['r0', 'r1']);
  const { steps, attributes } = profiled(data, input);
  expect(attributes).toEqual(decision.attributes);
  expect(steps).toBeLessThanOrEqual(STEPS_PER_GLOB * 2 * 21);
}, 60_000);

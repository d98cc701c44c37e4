import fc from 'fast-check';
import { compileAcl, createOperationMatcher, decide, Evaluator, RequestValidationError, type VerifiedPayload } from '../../src/policy';

// Differential testing: random OpenAPI documents, ACLs, tokens and requests are decided twice, by
// policy.wasm (through decide(), as the adapters do) and by a reference model written here from
// the text of SPEC 3 and of issue 11's scopes (not from the Rego). They must agree; fast-check shrinks any disagreement to
// a minimal counterexample and prints it. 200 worlds x 50 requests = 10,000 cases per run.

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head'] as const;
const ACTION: Record<string, string> = { get: 'read', head: 'read', post: 'create', put: 'update', patch: 'update', delete: 'delete' };
const ROLES = ['r0', 'r1', 'r2', 'r3', 'anonymous'];

interface Param {
  name: string;
  in: 'path' | 'query';
  binding: string | undefined;
}
interface Operation {
  method: (typeof METHODS)[number];
  path: string;
  secured: boolean;
  params: Param[];
  /** The scopes of each security requirement (each one an alternative); [] means `security: [{ bearer: [] }]`. */
  scopes: string[][];
}
interface World {
  operations: Operation[];
  acl: Record<string, Record<string, unknown>>;
  /** compileAcl's requiredScopes. */
  requiredScopes: string[];
}
interface Request {
  operation: number;
  values: Record<string, string | undefined>;
  payload: VerifiedPayload | undefined;
}

const CLAIMS = ['c0', 'c1'];
const SCOPES = ['s0', 's1', 's2'];
const scopeSet = fc.uniqueArray(fc.constantFrom(...SCOPES), { maxLength: 3 });
/** The token's scopes: `scope` (a string, or junk), `scp` (a list, a string, or junk), both or neither. */
const scopeClaims = fc.record(
  {
    scope: fc.oneof(scopeSet.map((scopes) => scopes.join(' ')), fc.constantFrom(null, 7, ['s0'], 's0  s1', 'S0', 's0s1')),
    scp: fc.oneof(scopeSet, scopeSet.map((scopes) => scopes.join(' ')), fc.constantFrom(null, ['s0', 1], { s0: true })),
  },
  { requiredKeys: [] },
);
const claimValue = fc.oneof(
  fc.integer({ min: 0, max: 4 }),
  fc.integer({ min: 0, max: 4 }).map((n) => `0${n}`),
  fc.array(fc.oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 }).map(String)), { maxLength: 3 }),
  fc.constantFrom(null, 'x', { n: 1 }, 2.5),
);

/** Up to 4 paths; each has up to 2 path parameters, maybe a bound query parameter, and some methods. */
const operationsArb = fc
  .uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 4 })
  .chain((names) =>
    fc.tuple(
      ...names.map((name) =>
        fc.record({
          pathParams: fc.integer({ min: 0, max: 2 }),
          bindings: fc.array(fc.option(fc.constantFrom(...CLAIMS), { nil: undefined }), { minLength: 2, maxLength: 2 }),
          query: fc.option(fc.record({ binding: fc.option(fc.constantFrom(...CLAIMS), { nil: undefined }) }), { nil: undefined }),
          methods: fc.uniqueArray(fc.constantFrom(...METHODS), { minLength: 1, maxLength: 3 }),
          secured: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
          scopes: fc.array(fc.array(scopeSet, { maxLength: 2 }), { minLength: 3, maxLength: 3 }),
        }).map(({ pathParams, bindings, query, methods, secured, scopes }) => {
          const params: Param[] = Array.from({ length: pathParams }, (_, i) => ({ name: `${name}${i}`, in: 'path' as const, binding: bindings[i] }));
          if (query) params.push({ name: `q${name}`, in: 'query', binding: query.binding });
          const path = `/${name}${params.filter((p) => p.in === 'path').map((p) => `/{${p.name}}`).join('')}`;
          return methods.map((method, i) => ({ method, path, secured: secured[i] ?? true, params, scopes: scopes[i] ?? [] }));
        }),
      ),
    ),
  )
  .map((groups) => groups.flat());

function aclArb(operations: Operation[]) {
  const paths = [...new Set(operations.map((operation) => operation.path))];
  const grant = fc.dictionary(
    fc.constantFrom(...['create', 'read', 'update', 'delete'].flatMap((a) => [`${a}:any`, `${a}:own`])),
    fc.oneof(fc.constant(['*']), fc.constant([] as string[]), fc.constant(['x', '!y'])),
    { maxKeys: 3 },
  );
  const role = fc.record({
    grants: fc.dictionary(fc.constantFrom(...paths), grant, { maxKeys: paths.length }),
    extend: fc.uniqueArray(fc.constantFrom('r0', 'r1', 'r2', 'r3'), { maxLength: 2 }),
  });
  return fc.record({ declared: fc.uniqueArray(fc.constantFrom(...ROLES), { minLength: 1, maxLength: 5 }), roles: fc.dictionary(fc.constantFrom(...ROLES), role) }).map(({ declared, roles }) => {
    const acl: Record<string, Record<string, unknown>> = {};
    for (const name of declared) {
      const { grants, extend } = roles[name] ?? { grants: {}, extend: [] };
      // Only extend roles declared earlier in the list: an acyclic $extend, as the compiler requires.
      const parents = extend.filter((parent) => declared.indexOf(parent) >= 0 && declared.indexOf(parent) < declared.indexOf(name));
      acl[name] = { ...grants, ...(parents.length > 0 ? { $extend: parents } : {}) };
    }
    return acl;
  });
}

const worldArb: fc.Arbitrary<World> = operationsArb.chain((operations) =>
  fc.tuple(aclArb(operations), fc.uniqueArray(fc.constantFrom(...SCOPES), { maxLength: 1 })).map(([acl, requiredScopes]) => ({ operations, acl, requiredScopes })),
);

function requestArb(world: World): fc.Arbitrary<Request> {
  return fc.record({
    operation: fc.integer({ min: 0, max: world.operations.length - 1 }),
    values: fc.dictionary(fc.constantFrom('a0', 'a1', 'b0', 'b1', 'c0', 'c1', 'd0', 'd1', 'qa', 'qb', 'qc', 'qd'), fc.option(fc.oneof(fc.integer({ min: 0, max: 4 }).map(String), fc.constantFrom('03', 'x', '+1')), { nil: undefined })),
    payload: fc.option(
      fc.record(
        {
          role: fc.oneof(fc.constantFrom(...ROLES, 'nobody'), fc.uniqueArray(fc.constantFrom(...ROLES, 'nobody'), { maxLength: 3 }), fc.constantFrom(null, 7, { r: 1 })),
          c0: claimValue,
          c1: claimValue,
          a0: claimValue,
          b1: claimValue,
          qc: claimValue,
        },
        { requiredKeys: [] },
      ).chain((claims) => scopeClaims.map((scopes) => ({ ...claims, ...scopes }))),
      { nil: undefined },
    ),
  });
}

/** SPEC 3, read literally; `refused`: SPEC 7.1, an owned value its schema does not allow is a 400, not a decision. */
function model(world: World, request: Request): { allow: boolean; refused?: boolean } {
  const operation = world.operations[request.operation]!;
  if (!operation.secured) return { allow: true };
  const ownedValues = operation.params.filter((param) => param.in === 'path' || param.binding !== undefined).map((param) => request.values[param.name]);
  if (ownedValues.some((value) => value !== undefined && !/^[+-]?\d+$/.test(value))) return { allow: false, refused: true };
  const payload = request.payload;
  const claim = payload === undefined || !Object.hasOwn(payload, 'role') ? undefined : payload.role;
  let roles: string[];
  if (payload === undefined || !Object.hasOwn(payload, 'role')) roles = ['anonymous'];
  else if (typeof claim === 'string') roles = [claim];
  else if (Array.isArray(claim) && claim.length > 0 && claim.every((r) => typeof r === 'string')) roles = claim as string[];
  else return { allow: false };

  const action = ACTION[operation.method]!;
  const inherited = (role: string, seen: Set<string> = new Set()): string[] => {
    if (seen.has(role) || !(role in world.acl)) return [];
    seen.add(role);
    const parents = (world.acl[role]!.$extend as string[] | undefined) ?? [];
    return [role, ...parents.flatMap((parent) => inherited(parent, seen))];
  };
  const holds = (possession: string) =>
    roles.some((role) => inherited(role).some((r) => ((world.acl[r]![operation.path] as Record<string, string[]> | undefined)?.[`${action}:${possession}`] ?? []).length > 0));

  // Scopes: the token must hold every scope of one requirement, plus the required scopes.
  const requirements = operation.scopes.length === 0 ? [[]] : operation.scopes;
  const held = tokenScopes(payload);
  if (!requirements.some((listed) => [...listed, ...world.requiredScopes].every((scope) => held.includes(scope)))) return { allow: false };

  const anonymousDefault = roles.includes('anonymous') && !('anonymous' in world.acl) && action === 'read' && operation.params.length === 0;
  if (holds('any') || anonymousDefault) return { allow: true };
  if (!holds('own')) return { allow: false };
  const owned = operation.params.filter((param) => param.in === 'path' || param.binding !== undefined);
  if (owned.length === 0) return { allow: false };
  return {
    allow: owned.every((param) => {
      const value = request.values[param.name];
      if (value === undefined || !/^[+-]?\d+$/.test(value)) return false;
      const held = payload?.[param.binding ?? param.name];
      const list = Array.isArray(held) ? held : [held];
      return list.some((item) => (typeof item === 'number' && Number.isInteger(item)) || (typeof item === 'string' && /^[+-]?\d+$/.test(item)) ? Number(item) === Number(value) : false);
    }),
  };
}

/** `scope`, a space-separated string; else `scp`, a list of strings or such a string; anything else holds none. */
function tokenScopes(payload: VerifiedPayload | undefined): string[] {
  if (payload === undefined) return [];
  if ('scope' in payload) return typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
  if (typeof payload.scp === 'string') return payload.scp.split(' ');
  return Array.isArray(payload.scp) && payload.scp.every((scope) => typeof scope === 'string') ? payload.scp : [];
}

function openapi(world: World): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of world.operations) {
    const parameters = operation.params.map((param) => ({
      name: param.name,
      in: param.in,
      required: param.in === 'path',
      schema: { type: 'integer' },
      ...(param.binding ? { 'x-acl-binding': param.binding } : {}),
    }));
    const security = operation.scopes.length === 0 ? [{ bearer: [] }] : operation.scopes.map((scopes) => ({ bearer: scopes }));
    (paths[operation.path] ??= {})[operation.method] = { parameters, security: operation.secured ? security : [] };
  }
  return { openapi: '3.0.3', info: { title: 'random', version: '1' }, security: [{ bearer: [] }], components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } }, paths };
}

test('policy.wasm agrees with the reference model of SPEC 3 (and 7.1), scopes included, on 10,000 random cases', async () => {
  let cases = 0;
  await fc.assert(
    fc.asyncProperty(
      worldArb.chain((world) => fc.tuple(fc.constant(world), fc.array(requestArb(world), { minLength: 50, maxLength: 50 }))),
      async ([world, requests]) => {
        const data = compileAcl({ openapi: openapi(world), acl: world.acl, requiredScopes: world.requiredScopes });
        const evaluator = Evaluator.createSync(data, { decisionCacheSize: 0 });
        const match = createOperationMatcher(data.operations);
        for (const request of requests) {
          cases++;
          const operation = world.operations[request.operation]!;
          const pathParams = Object.fromEntries(operation.params.filter((p) => p.in === 'path').map((p) => [p.name, request.values[p.name] ?? '1']));
          const values = { ...request.values, ...pathParams };
          const concrete = operation.path.replace(/\{(\w+)\}/g, (_m, name: string) => values[name]!);
          const query = new URLSearchParams(operation.params.filter((p) => p.in === 'query' && values[p.name] !== undefined).map((p): [string, string] => [p.name, values[p.name]!]));
          const found = match(operation.method, concrete)!;
          const expected = model(world, { ...request, values });
          let decided: { allow: boolean; refused?: boolean; reasons: string[] };
          try {
            decided = (await decide(evaluator, found.key, found.operation, { pathParams: found.pathParams, query }, request.payload)).decision;
          } catch (error) {
            if (!(error instanceof RequestValidationError)) throw error;
            decided = { allow: false, refused: true, reasons: [error.message] };
          }
          if (decided.allow !== expected.allow || Boolean(decided.refused) !== Boolean(expected.refused)) {
            throw new Error(`svcgate says ${decided.refused ? 'refused' : decided.allow}, the model says ${expected.refused ? 'refused' : expected.allow} for ${found.key} ${JSON.stringify({ values, payload: request.payload })}; reasons: ${decided.reasons.join('; ')}`);
          }
        }
      },
    ),
    { numRuns: 200, seed: Number(process.env.SVCGATE_FC_SEED ?? Date.now() % 2 ** 31), verbose: 1 },
  );
  expect(cases).toBeGreaterThanOrEqual(10_000);
}, 120_000);

import { resolve } from 'node:path';
import { z } from 'zod';
import { claimPathSchema } from '../policy/request/claim-path';
import { ConfigError, jsonPath } from '../policy/compile/config-error';
import { MAX_FILE_DEPTH } from '../policy/compile/documents/document-limits';
import { loadDocument, isPlainObject } from '../policy/compile/documents/load-document';
import { quoted } from '../policy/compile/quoted-text';
import { scopeListSchema } from '../policy/compile/scope-requirements';
import type { SchemaMatches } from '../policy/compile/schema-matches';
import type { ExpectedOutcome, PermissionSuite, SuiteGuardOptions, SuitePrincipal, SuiteRequest, SuiteStatus, SuiteTest } from './permission-suite-types';
import { jsonOver, MAX_BODY_BYTES, MAX_CLAIMS_BYTES, MAX_REQUEST_HEAD_BYTES, MAX_SUITE_CASES, requestHeadOver } from './suite-limits';

const SUITE_STATUSES = [200, 400, 401, 403, 404, 405] as const satisfies readonly SuiteStatus[];

/** The principal every suite has without declaring it: a caller that sends no token. */
const ANONYMOUS = 'anonymous';

/** Framing and hop-by-hop headers: the runner's to set; a wrong Content-Length would leave the server waiting for a body. */
const RUNNER_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect']);
const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'] as const;
const FORMAT_DOC = 'see "Permission test suites" in docs/openapi-apis.md';

/** The message for a value of the wrong type; any other issue (an unknown key, a bad element) keeps zod's own, which names it. */
const wrongType = (message: string) => ({ error: (issue: { code?: string }) => (issue.code === 'invalid_type' ? message : undefined) });

/** Names show on a CI console and in JUnit reports: no control or format characters (a bidi override would turn the line around). */
const name = (what: string) =>
  z
    .string({ error: `${what} must be text` })
    .min(1, { error: `${what} must not be empty` })
    .max(200, { error: `${what} must be at most 200 characters` })
    .regex(/^[^\p{Cc}\p{Cf}]+$/u, { error: `${what} must not hold control or format characters` });

/** A path given here goes to the real server as it is: printable ASCII (percent-encode the rest), starting with /. */
const target = z
  .string({ error: 'path must be text such as /api/v1/users/3?x=1' })
  .regex(/^\/[\x21-\x7e]*$/, { error: 'path must start with / and hold only printable ASCII without spaces (percent-encode the rest, e.g. %20)' });

const outcomeSchema = z
  .object({
    allow: z.boolean({ error: 'allow must be true or false' }).optional(),
    status: z
      .union(
        SUITE_STATUSES.map((status) => z.literal(status)),
        { error: `status must be one of ${SUITE_STATUSES.join(', ')}` },
      )
      .optional(),
    attributes: z.array(z.string({ error: 'each attribute must be text, such as "*" or "!password"' }), wrongType('attributes must be a list, such as ["*", "!password"]')).optional(),
  }, wrongType('an expected outcome must be an object with allow, status and/or attributes'))
  .strict()
  .refine((outcome) => outcome.allow !== undefined || outcome.status !== undefined || outcome.attributes !== undefined, { error: 'an expected outcome needs allow, status or attributes' })
  .refine((outcome) => outcome.allow === undefined || outcome.status === undefined || outcome.allow === (outcome.status === 200), {
    error: 'allow and status contradict each other: allow: true is status 200, allow: false any other',
  })
  .refine((outcome) => outcome.attributes === undefined || outcome.attributes.length === 0 || (outcome.allow !== false && (outcome.status ?? 200) === 200), {
    error: 'a denied request is granted no attributes: expect attributes: [] or drop them',
  });

const requestSchema = z
  .object({
    method: z
      .string({ error: `method must be one of ${METHODS.join(', ')}` })
      .transform((method) => method.toUpperCase())
      .pipe(z.enum(METHODS, { error: `method must be one of ${METHODS.join(', ')}` })),
    path: target,
    headers: z
      .record(
        z
          .string()
          .regex(/^[!#$%&'*+.^`|~\w-]+$/, { error: 'a header name is a token such as X-Request-Id' })
          .refine((header) => !RUNNER_HEADERS.has(header.toLowerCase()), { error: 'the runner frames the request and its connection: Content-Length, Transfer-Encoding, Connection, Keep-Alive, Upgrade, TE, Trailer and Expect cannot be set (a wrong length would leave the request unanswered)' }),
        z.string({ error: 'a header value must be text' }).regex(/^[\t\x20-\x7e]*$/, { error: 'a header value must be printable ASCII on one line' }),
        wrongType('headers must be a map of name: value'),
      )
      .optional(),
    /** A string is sent as it is; any other value as JSON. */
    body: z.unknown().optional(),
  }, wrongType('request must be an object: { method, path, headers?, body? }'))
  .strict();

const principalSchema = z
  .object({
    /** The token's claims; absent: the principal sends no token. */
    claims: z.record(z.string(), z.unknown(), wrongType('claims must be a map of claim: value, such as { role: user, userId: [1, 3] }')).optional(),
    description: z.string({ error: 'description must be text' }).optional(),
  }, wrongType('a principal must be an object: { claims: { ... } }, or {} for one without a token'))
  .strict();

const testSchema = z
  .object({
    name: name('a test name'),
    principal: name('principal').optional(),
    principals: z.array(name('each principal'), wrongType('principals must be a list of principal names')).min(1, { error: 'principals must name at least one principal' }).optional(),
    request: requestSchema,
    expect: outcomeSchema.optional(),
    /** Per principal, in place of `expect`. */
    expectFor: z.record(z.string(), outcomeSchema, wrongType('expectFor must be a map of principal: outcome')).optional(),
  }, wrongType('each test must be an object: { name, principal, request, expect }'))
  .strict()
  .refine((test) => (test.principal === undefined) !== (test.principals === undefined), { error: 'give either principal (one name) or principals (a list), exactly one of them' });

const guardSchema = z
  .object({
    scheme: z.string({ error: 'scheme must name a security scheme of the document' }).min(1).optional(),
    roleBinding: claimPathSchema('roleBinding').optional(),
    requiredScopes: scopeListSchema.optional(),
    refRoot: z.string({ error: 'refRoot must be the path of a folder' }).min(1).optional(),
    strict: z.boolean({ error: 'strict must be true or false' }).optional(),
  }, wrongType('guard must be an object: { scheme?, roleBinding?, requiredScopes?, refRoot?, strict? }'))
  .strict();

const suiteSchema = z
  .object({
    name: name('the suite name').optional(),
    description: z.string({ error: 'description must be text' }).optional(),
    openapi: z.union([z.string().min(1), z.custom<Record<string, unknown>>(isPlainObject)], { error: 'openapi must be the path of the OpenAPI document (relative to the suite file)' }),
    acl: z.union([z.string().min(1), z.custom<Record<string, unknown>>(isPlainObject)], { error: 'acl must be the path of the permission declaration (relative to the suite file)' }),
    guard: guardSchema.default({}),
    principals: z.record(name('a principal name'), principalSchema, wrongType('principals must be a map of name: { claims }')).default({}),
    tests: z.array(testSchema, wrongType('tests must be a list of tests')).min(1, { error: 'a suite needs at least one test' }),
  }, wrongType('a suite must be an object: { openapi, acl, principals, tests }'))
  .strict();

// The documented types and the schemas describe one format: the same fields, of the same types
// (a type error here when the two drift apart; see schema-matches.ts).
true satisfies SchemaMatches<typeof suiteSchema, PermissionSuite>;
true satisfies SchemaMatches<typeof guardSchema, SuiteGuardOptions>;
true satisfies SchemaMatches<typeof principalSchema, SuitePrincipal>;
true satisfies SchemaMatches<typeof testSchema, SuiteTest>;
true satisfies SchemaMatches<typeof requestSchema, SuiteRequest>;
true satisfies SchemaMatches<typeof outcomeSchema, ExpectedOutcome>;

/** One principal sending one request: a suite's test expands into one case per principal. */
export interface SuiteCase {
  test: string;
  principal: string;
  /** The claims signed into its token; undefined: no token. */
  claims: Record<string, unknown> | undefined;
  request: SuiteRequest;
  expected: ExpectedOutcome;
}

/** A suite read and checked, its paths resolved: what the runner needs. */
export interface LoadedSuite {
  name: string;
  /** The suite's file, or `<inline permission suite>`. */
  file: string;
  openapi: string | Record<string, unknown>;
  acl: string | Record<string, unknown>;
  guard: SuiteGuardOptions;
  cases: SuiteCase[];
}

/**
 * Reads a suite from a .yaml, .yml or .json file (within the limits every document is read with)
 * or takes it as an object, and checks it: a ConfigError names the file, the place in it and the
 * fix. Relative paths resolve against the suite's folder (an object's: `baseDir`).
 */
export function loadPermissionSuite(source: string | PermissionSuite, baseDir = process.cwd()): LoadedSuite {
  const { value, file, dir } = loadDocument(source, 'permission suite');
  const result = suiteSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const at = issue.path.map((key) => (typeof key === 'number' ? key : String(key)));
    // A map's bad key is one issue holding what is wrong with the key.
    const problem = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    throw new ConfigError(file, jsonPath(at), problem, fixFor(at));
  }
  const suite = result.data;
  const folder = dir ?? resolve(baseDir);
  const local = <T>(path: T) => (typeof path === 'string' ? resolve(folder, path) : path);
  if (Object.hasOwn(suite.principals, ANONYMOUS) && suite.principals[ANONYMOUS]!.claims !== undefined) {
    throw new ConfigError(file, jsonPath(['principals', ANONYMOUS]), 'anonymous is the built-in principal that sends no token', 'give the principal with claims another name');
  }
  checkSuiteSize(suite, file);
  return {
    name: suite.name ?? (typeof source === 'string' ? file : 'permission suite'),
    file,
    openapi: local(suite.openapi),
    acl: local(suite.acl),
    guard: { ...suite.guard, ...(suite.guard.refRoot === undefined ? {} : { refRoot: resolve(folder, suite.guard.refRoot) }) },
    cases: suite.tests.flatMap((test, index) => casesOf(test, index, suite.principals, file)),
  };
}

type Test = z.output<typeof testSchema>;
type Principals = z.output<typeof suiteSchema>['principals'];

/** The bounds of suite-limits.ts, checked before any case is made or request sent. */
function checkSuiteSize(suite: z.output<typeof suiteSchema>, file: string): void {
  let cases = 0;
  suite.tests.forEach((test, index) => {
    cases += test.principals?.length ?? 1;
    if (cases > MAX_SUITE_CASES) {
      throw new ConfigError(file, jsonPath(['tests', index]), `the suite makes more than ${MAX_SUITE_CASES} cases (one per principal of each test; the limit)`, 'split it into several suites, one per area of the API');
    }
    const { path, headers, body } = test.request;
    if (requestHeadOver(path, headers, MAX_REQUEST_HEAD_BYTES)) {
      throw new ConfigError(file, jsonPath(['tests', index, 'request']), `the path and headers take more than ${MAX_REQUEST_HEAD_BYTES} bytes (the limit; the server would refuse them with 431 before the guard)`, 'shorten the path and headers');
    }
    if (body !== undefined && (typeof body === 'string' ? body.length > MAX_BODY_BYTES || Buffer.byteLength(body) > MAX_BODY_BYTES : jsonOver(body, MAX_BODY_BYTES))) {
      throw new ConfigError(file, jsonPath(['tests', index, 'request', 'body']), `the body takes more than ${MAX_BODY_BYTES} bytes or ${MAX_FILE_DEPTH} levels of nesting (the limit; the app's express.json() answers 413 to a larger one before the guard)`, 'send only the fields the guard reads');
    }
  });
  for (const [principal, { claims }] of Object.entries(suite.principals)) {
    if (claims !== undefined && jsonOver(claims, MAX_CLAIMS_BYTES)) {
      throw new ConfigError(file, jsonPath(['principals', principal, 'claims']), `the claims take more than ${MAX_CLAIMS_BYTES} bytes as JSON or ${MAX_FILE_DEPTH} levels of nesting (the limit; the token is sent in a header)`, 'keep the claims the ACL and roleBinding read');
    }
  }
}

function casesOf(test: Test, index: number, principals: Principals, file: string): SuiteCase[] {
  const names = test.principals ?? [test.principal!];
  const at = (...path: (string | number)[]) => jsonPath(['tests', index, ...path]);
  names.forEach((principal, position) => {
    if (principal !== ANONYMOUS && !Object.hasOwn(principals, principal)) {
      const where = test.principals ? at('principals', position) : at('principal');
      throw new ConfigError(file, where, `no principal is named ${quoted(principal)}`, `declare it under principals (principals: { ${principal}: { claims: { ... } } }), or use ${ANONYMOUS} for a caller without a token`);
    }
  });
  const listed = new Set(names);
  for (const principal of Object.keys(test.expectFor ?? {})) {
    if (!listed.has(principal)) throw new ConfigError(file, at('expectFor', principal), `${quoted(principal)} is not a principal of this test`, `list it in the test's principals, or remove it from expectFor`);
  }
  return names.map((principal) => {
    const expected = test.expectFor?.[principal] ?? test.expect;
    if (expected === undefined) throw new ConfigError(file, at(), `nothing is expected for principal ${quoted(principal)}`, 'add expect: { status: 200 } (or allow, attributes), or an expectFor entry for it');
    return { test: test.name, principal, claims: principals[principal]?.claims, request: test.request, expected };
  });
}

/** The fix names what a valid value looks like at the place of the first problem. */
function fixFor(at: readonly (string | number)[]): string {
  const [top, , part] = at;
  if (top === 'tests' && part === 'request') return `write request: { method: GET, path: /users/3 } (headers and body optional); ${FORMAT_DOC}`;
  if (top === 'tests' && (part === 'expect' || part === 'expectFor')) return `write expect: { status: 403 }, { allow: true, attributes: ["*"] } or the like; ${FORMAT_DOC}`;
  if (top === 'tests') return `write each test as { name, principal, request: { method, path }, expect: { status } }; ${FORMAT_DOC}`;
  if (top === 'principals') return `write principals as { <name>: { claims: { role: user } } }, or <name>: {} for a caller without a token; ${FORMAT_DOC}`;
  if (top === 'guard') return `the guard options are bearerJwtAcl's: scheme, roleBinding, requiredScopes, refRoot, strict; ${FORMAT_DOC}`;
  return `a suite is { openapi, acl, guard?, principals, tests }; ${FORMAT_DOC}`;
}

import { compileOperations } from '../policy/compile/compile-acl';
import { createTestIssuer } from './create-test-issuer';
import { loadPermissionSuite, type SuiteCase } from './permission-suite-format';
import type { ExpectedOutcome, PermissionSuite } from './permission-suite-types';
import { serveGuardedApp, type Answer } from './suite-server';

export interface RunPermissionSuiteOptions {
  /** The folder an object suite's relative paths resolve against; default the working directory. A suite file's own folder is always used for its paths. */
  baseDir?: string;
}

/** What the app did with one case's request. */
export interface ObservedOutcome {
  status: number;
  /** True when the guard let the request through to the route (status 200). */
  allow: boolean;
  /** The attributes the decision granted, sorted; [] on a deny. */
  attributes: string[];
  /** The decision's role and possession (null when there was no decision, e.g. a token refused with 401). */
  role: string | null;
  possession: string | null;
  /** Why it was denied: the decision's reasons, else the answer's message (a 400 or 404 answered before deciding); [] when allowed. */
  reasons: string[];
  /** The answer's message when it says more than the reasons (a 401's "this operation needs a bearer token"). */
  answer?: string;
}

export interface PermissionCaseResult {
  /** `<test name> [<principal>]`. */
  name: string;
  test: string;
  principal: string;
  request: { method: string; path: string };
  passed: boolean;
  expected: ExpectedOutcome;
  actual: ObservedOutcome;
  /** One line per expectation not met, such as `status: expected 200, got 403`; [] when passed. */
  mismatches: string[];
  durationMs: number;
}

export interface PermissionSuiteResult {
  name: string;
  /** The suite's file, or `<inline permission suite>`. */
  file: string;
  /** True when every case passed. */
  ok: boolean;
  passed: number;
  failed: number;
  cases: PermissionCaseResult[];
  /** RFC 3339, when the cases started. */
  startedAt: string;
  durationMs: number;
}

/**
 * Runs a permission test suite: every case is sent as real HTTP to an Express app on 127.0.0.1
 * guarded by bearerJwtAcl with the suite's OpenAPI document and ACL (decided by policy.wasm), its
 * principals' claims signed by a test issuer that app trusts. Resolves with every case's result,
 * failed ones included; rejects with a ConfigError when the suite (or its document or ACL) is bad.
 */
export async function runPermissionSuite(suite: string | PermissionSuite, options: RunPermissionSuiteOptions = {}): Promise<PermissionSuiteResult> {
  const loaded = loadPermissionSuite(suite, options.baseDir);
  const { scheme: givenScheme, ...guard } = loaded.guard;
  const scheme = givenScheme ?? compileOperations({ openapi: loaded.openapi, refRoot: guard.refRoot }).scheme;
  const issuer = await createTestIssuer({ alg: 'ES256' });
  const tokens = await signTokens(loaded.cases, (claims) => issuer.sign(claims));
  const server = await serveGuardedApp({ openapi: loaded.openapi, acl: loaded.acl, scheme, guard, handler: issuer.handler() });
  const startedAt = new Date();
  const began = performance.now();
  const cases: PermissionCaseResult[] = [];
  try {
    // One at a time: each answer is matched with the decision the guard logged for it.
    for (const suiteCase of loaded.cases) {
      const caseBegan = performance.now();
      const answer = await server.send(suiteCase.request, tokens.get(suiteCase.principal));
      cases.push(judge(suiteCase, observe(answer), performance.now() - caseBegan));
    }
  } finally {
    await server.close();
  }
  const failed = cases.filter((result) => !result.passed).length;
  return { name: loaded.name, file: loaded.file, ok: failed === 0, passed: cases.length - failed, failed, cases, startedAt: startedAt.toISOString(), durationMs: performance.now() - began };
}

/** One token per principal with claims, signed once for all its cases. */
async function signTokens(cases: SuiteCase[], sign: (claims: Record<string, unknown>) => Promise<string>): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  for (const { principal, claims } of cases) {
    if (claims !== undefined && !tokens.has(principal)) tokens.set(principal, await sign(claims));
  }
  return tokens;
}

function observe({ status, passed, logged, message }: Answer): ObservedOutcome {
  const decision = passed ?? logged?.result;
  const reasons = passed ? [] : logged && logged.result.reasons.length > 0 ? logged.result.reasons : message === undefined ? [] : [message];
  // A 403's message is its reasons again; a 401 without a token says what is missing instead.
  const answer = passed || message === undefined || reasons.some((reason) => message.includes(reason)) ? undefined : message;
  return {
    status,
    allow: passed !== undefined,
    attributes: passed ? [...passed.attributes].sort() : [],
    role: decision?.role ?? null,
    possession: decision?.possession ?? null,
    reasons,
    ...(answer === undefined ? {} : { answer }),
  };
}

function judge(suiteCase: SuiteCase, actual: ObservedOutcome, durationMs: number): PermissionCaseResult {
  const { expected } = suiteCase;
  const mismatches: string[] = [];
  if (expected.status !== undefined && expected.status !== actual.status) mismatches.push(`status: expected ${expected.status}, got ${actual.status}`);
  if (expected.allow !== undefined && expected.allow !== actual.allow) mismatches.push(`allow: expected ${expected.allow}, got ${actual.allow}`);
  if (expected.attributes !== undefined) {
    const wanted = [...new Set(expected.attributes)].sort();
    if (JSON.stringify(wanted) !== JSON.stringify([...new Set(actual.attributes)])) mismatches.push(`attributes: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(actual.attributes)}`);
  }
  return {
    name: `${suiteCase.test} [${suiteCase.principal}]`,
    test: suiteCase.test,
    principal: suiteCase.principal,
    request: { method: suiteCase.request.method, path: suiteCase.request.path },
    passed: mismatches.length === 0,
    expected,
    actual,
    mismatches,
    durationMs,
  };
}

/**
 * The format of a permission test suite, as a suite file (YAML or JSON) holds it and as
 * runPermissionSuite takes it as an object. permission-suite-format.ts validates it.
 */

/** The statuses a case can expect: allowed (the route answered), refused unread, no or a refused token, denied, no such operation. */
export type SuiteStatus = 200 | 400 | 401 | 403 | 404 | 405;

/** What must happen to a case's request; every field given must hold, at least one is given. */
export interface ExpectedOutcome {
  /** true: the guard let the request through to the route (status 200); false: it answered itself. */
  allow?: boolean;
  /** The status the guard answers with (200: it let the request through to the route). */
  status?: SuiteStatus;
  /** The attributes the decision grants (`["*", "!password"]`), in any order; only on an allowed request, or `[]`. */
  attributes?: string[];
}

/** The request a case sends. */
export interface SuiteRequest {
  /** GET, PUT, POST, DELETE, OPTIONS, HEAD, PATCH or TRACE, in any case. */
  method: string;
  /** As the client sends it, under the document's servers prefix, query included: `/api/v1/users/3?x=1`. Printable ASCII. */
  path: string;
  /** Sent after the token: an `Authorization` header here replaces the principal's. Default: none. */
  headers?: Record<string, string>;
  /** A string is sent as it is (text/plain); any other value as JSON (application/json). Default: no body. */
  body?: unknown;
}

/** A caller: the claims of its token. */
export interface SuitePrincipal {
  /** The token's claims, over iss, aud, iat and exp (ten minutes) of the test issuer. Without them the principal sends no token. */
  claims?: Record<string, unknown>;
  /** Shown in reports beside the principal's name. Default: none. */
  description?: string;
}

/** One request, sent once per principal named. */
export interface SuiteTest {
  /** Names the test in reports and JUnit XML. */
  name: string;
  /** One principal (declared, or `anonymous`); or `principals`. */
  principal?: string;
  /** Several principals, each sending the request once; in place of `principal`. */
  principals?: string[];
  /** The request every principal of the test sends. */
  request: SuiteRequest;
  /** What must happen, for every principal of the test without an `expectFor` entry. */
  expect?: ExpectedOutcome;
  /** Per principal, in place of `expect`. */
  expectFor?: Record<string, ExpectedOutcome>;
}

/** bearerJwtAcl's options for the guard the cases go through. */
export interface SuiteGuardOptions {
  /** The bearer security scheme; default the document's only one. */
  scheme?: string;
  /** The claim with the role(s), as a claim path; default `role`. */
  roleBinding?: string;
  /** Scopes every guarded operation needs. Default: none. */
  requiredScopes?: string[];
  /** The folder the document's file $refs must stay inside (relative to the suite file); default the document's folder. */
  refRoot?: string;
  /** The ACL's start-up warnings are errors. Default `false`. */
  strict?: boolean;
}

/** A permission test suite. */
export interface PermissionSuite {
  /** Shown in reports; default the suite's file. */
  name?: string;
  /** Shown in reports under the name. Default: none. */
  description?: string;
  /** The OpenAPI document: a path relative to the suite file, or the document itself. */
  openapi: string | Record<string, unknown>;
  /** The permission declaration: a path relative to the suite file, or the declaration itself. */
  acl: string | Record<string, unknown>;
  /** bearerJwtAcl's options for the guard the cases go through. Default: the defaults of each. */
  guard?: SuiteGuardOptions;
  /** Named callers; `anonymous` (no token) needs no declaration. Default: only `anonymous`. */
  principals?: Record<string, SuitePrincipal>;
  /** The tests, at least one; each expands into one case per principal. */
  tests: SuiteTest[];
}

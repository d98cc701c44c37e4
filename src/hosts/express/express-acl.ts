import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { compileApi, compileOperations } from '../../policy/compile/compile-acl';
import { ConfigError } from '../../policy/compile/config-error';
import type { OperationFacts } from '../../policy/compile/data-document';
import type { DecisionSource, PolicySource } from '../../policy/evaluate/decision-source';
import { Evaluator } from '../../policy/evaluate/evaluator';
import { thenOrNow } from '../../policy/evaluate/then-or-now';
import { cachedMatcher } from '../../policy/request/cached-matcher';
import type { OperationMatch } from '../../policy/request/match-operation';
import { parseWith } from '../../policy/compile/parse-with';
import type { SchemaMatches } from '../../policy/compile/schema-matches';
import { readTarget } from '../../policy/request/read-target';
import { RequestValidationError } from '../../policy/request/request-validation-error';
import { refRootSchema } from '../../policy/compile/documents/reference-root';
import { scopeListSchema } from '../../policy/compile/scope-requirements';
import { decisionOptions, type AclOptions } from '../../guard/acl-options';
import { aclOptionsShape, policySourceSchema } from '../../guard/acl-options-schema';
import type { BearerJwtHandler } from '../../token/bearer-jwt';
import '../../guard/express-request';
import { answerError } from '../../guard/error-answers';
import { guardRequest, type Guard, type GuardedRequest } from '../../guard/guard-request';
import { MethodNotAllowedError, NotFoundError } from '../../guard/http-errors';
import { requestRefused } from '../../guard/refusal-errors';
import { admitByOtherScheme } from '../../guard/other-scheme';
import { DOCUMENT_LISTS, refuseOwnershipCallback } from '../../guard/list-operations';
import { readSecurity, securityPlans, type SchemeCheck } from './express-security';
import { prefixedMatcher, prefixedPathMethods } from './server-prefixes';
import { candidateSource, type CandidateBuilders } from '../../guard/shadow/candidate-source';
import { shadowedScheme } from '../../guard/shadow/shadowed-scheme';
import type { ShadowStatus } from '../../guard/shadow/shadow-options';
import { ShadowRunner } from '../../guard/shadow/shadow-runner';

export interface BearerJwtAclOptions extends AclOptions {
  /** The OpenAPI document: an object, or a path to a JSON or YAML file. */
  openapi: unknown;
  /** The folder the document's file `$ref`s must stay inside; default the document's folder (see compileAcl). */
  refRoot?: string;
  /** The verifier, from bearerJwt(config). */
  handler: BearerJwtHandler;
  /** `{ <schemeName>: declaration }`: one bearer scheme, its permission declaration (object or file). Give `acl` or `policy`, exactly one. */
  acl?: Record<string, unknown>;
  /**
   * In place of `acl`: `{ <schemeName>: source }`, decisions from a bundle (`bundleConsumer`) or a
   * remote OPA (`remoteOpa`) instead of a local declaration. Give `acl` or `policy`, exactly one.
   */
  policy?: Record<string, PolicySource>;
  /**
   * Requests that match no operation of the document. `'deny'` (the default): 404 for a path
   * outside the document; 405 with `Allow` for a documented path asked with a method it does not
   * declare; OPTIONS of a documented path (CORS preflights) passed on with next(), undecided.
   * `'pass'`: every such request passed on with next().
   */
  unknownOperations?: 'deny' | 'pass';
  /**
   * Checks for the document's other security schemes (`{ apiKey: (req) => keys.has(req.headers['x-api-key']) }`):
   * a request that meets an alternative without the bearer scheme is passed on undecided by the
   * ACL, logged with `other_schemes`, with `req.auth.schemes` naming the schemes it met and a
   * `filter` that keeps nothing (the ACL granted such a caller no attribute).
   * Default: none (a request must meet the bearer scheme).
   */
  otherSchemes?: Record<string, SchemeCheck>;
  /**
   * Scopes every guarded operation needs, on top of those its security requirements list (as
   * express-oauth2-jwt-bearer's requiredScopes): a token without them is answered 403 with an
   * insufficient_scope challenge. Default: none.
   */
  requiredScopes?: string[];
}

const FILE = '<bearerJwtAcl options>';

type Request = GuardedRequest & { baseUrl?: string };
type Response = ServerResponse;

const optionsSchema = z
  .object({
    openapi: z.unknown(),
    refRoot: refRootSchema.optional(),
    handler: z.custom<BearerJwtHandler>((value) => typeof value === 'function', { error: 'handler must be the function bearerJwt(config) returns' }),
    acl: z
      .record(z.string(), z.unknown())
      .refine((acl) => Object.keys(acl).length === 1, { error: 'acl must name exactly one security scheme: { <schemeName>: <declaration> }' })
      .optional(),
    policy: z
      .record(z.string(), policySourceSchema)
      .refine((policy) => Object.keys(policy).length === 1, { error: 'policy must name exactly one security scheme: { <schemeName>: <source> }' })
      .optional(),
    unknownOperations: z.enum(['deny', 'pass']).default('deny'),
    otherSchemes: z.record(z.string(), z.custom<SchemeCheck>((value) => typeof value === 'function', { error: 'each scheme check must be a function (req) => boolean' })).default({}),
    requiredScopes: scopeListSchema.optional(),
    ...aclOptionsShape,
  })
  .strict()
  .refine((options) => (options.acl === undefined) !== (options.policy === undefined), { error: 'give either acl (a local declaration) or policy (a bundle or remote OPA), exactly one of them' });

// The interface and the schema must accept the same fields (see schema-matches.ts).
true satisfies SchemaMatches<typeof optionsSchema, BearerJwtAclOptions>;

/** The middleware bearerJwtAcl returns. */
export interface BearerJwtAclMiddleware {
  (req: Request, res: Response, next: (error?: unknown) => void): void;
  /** The shadow candidate's counts and first divergences; null without the `shadow` option. */
  shadowStatus(): ShadowStatus | null;
  /** The adapter's status: `shadow` as shadowStatus() gives it. */
  status(): { shadow: ShadowStatus | null };
}

/**
 * Express middleware (4 and 5) that guards the operations of an OpenAPI document: it matches the
 * request to its operation, verifies the bearer token, asks the policy, and answers 401 or 403
 * (as its `errors` option says), or calls next() with `req.auth` set.
 */
export function bearerJwtAcl(options: BearerJwtAclOptions): BearerJwtAclMiddleware {
  const config = parseWith(optionsSchema, options, FILE, [], 'see bearerJwtAcl in docs/openapi-apis.md');
  const { source, operations, document, scheme } = connectSource(config);
  const shadowed = config.shadow && shadowedScheme(config.shadow.source, [scheme], documentSchemes(document), FILE);
  const shadow = config.shadow && shadowed && new ShadowRunner(source, candidateSource(shadowed.candidate, shadowed.at, FILE, candidateBuilders(config, scheme, operations)), config.shadow, config.decisionLog);
  // Most requests repeat a path seen shortly before; matching one costs more than looking it up.
  const find = cachedMatcher(prefixedMatcher(operations, document.servers));
  const pathMethods = prefixedPathMethods(document.paths as Record<string, unknown>, document.servers);
  const plans = securityPlans(document, operations, scheme, config.otherSchemes, FILE);
  const guard: Guard = {
    evaluator: source,
    handler: config.handler,
    options: { ...decisionOptions(config), shadow },
    schemes: Object.freeze([scheme]),
  };

  // Express 4 does not catch a rejected middleware promise, nor a throw here; nothing may escape unanswered.
  const middleware = (req: Request, res: Response, next: (error?: unknown) => void): void => {
    try {
      const guarding = guardRoute(req, res, next);
      if (guarding instanceof Promise) guarding.catch(next);
    } catch (error) {
      next(error);
    }
  };
  const shadowStatus = () => shadow?.status() ?? null;
  return Object.assign(middleware, { shadowStatus, status: () => ({ shadow: shadowStatus() }) });

  /**
   * A request that is no operation: with 'deny', 404 unless its path is documented. A documented
   * path answers 405 with `Allow` for a method it does not declare, and passes on undecided an
   * OPTIONS request (a CORS preflight, or asking for Allow) or a method the document declares
   * there but the bearer ACL has no action for (OPTIONS, TRACE without the bearer scheme).
   */
  function unmatched(req: Request, res: Response, next: (error?: unknown) => void, pathname: string): void {
    if (config.unknownOperations === 'pass') return next();
    const method = (req.method ?? 'GET').toUpperCase();
    const allowed = pathMethods(pathname);
    if (allowed === undefined) {
      const notFound = new NotFoundError({ code: 'ERR_SVCGATE_NO_OPERATION', description: `no operation of the API matches ${req.method} ${pathname}` });
      return answerError(res, notFound, guard.options.errors, next);
    }
    if (method === 'OPTIONS' || allowed.includes(method)) return next();
    const notAllowed = new MethodNotAllowedError({ allowed, description: `${pathname} answers ${allowed.join(', ')}, not ${method}` });
    return answerError(res, notAllowed, guard.options.errors, next);
  }

  // Returns nothing when the request was guarded at once (see guardRequest): no promise for Express 5 to wait on.
  function guardRoute(req: Request, res: Response, next: (error?: unknown) => void): void | Promise<void> {
    let found: OperationMatch | undefined;
    let pathname: string;
    try {
      pathname = routedPath(req);
      found = find(req.method ?? 'GET', pathname);
    } catch (error) {
      if (error instanceof RequestValidationError) return answerError(res, requestRefused(error), guard.options.errors, next);
      return next(error);
    }
    if (!found) return unmatched(req, res, next, pathname);
    const plan = plans.get(found.key);
    if (plan === undefined) return thenOrNow(guardRequest(guard, found, req, res, next), (allowed) => goOn(allowed, next));
    const operation = found;
    return readSecurity(plan, config.otherSchemes, req).then((reading) => {
      if (typeof reading === 'object') {
        admitByOtherScheme(guard, operation, req, reading.alternative);
        return next();
      }
      return thenOrNow(guardRequest(guard, operation, req, res, next, reading === 'anonymous'), (allowed) => goOn(allowed, next));
    });
  }
}

/** The adapter's operations and where their decisions come from: a local declaration compiled here, or a policy source. */
function connectSource(config: z.infer<typeof optionsSchema>): { source: DecisionSource; operations: Record<string, OperationFacts>; document: Record<string, unknown>; scheme: string } {
  const [[scheme, given]] = Object.entries(config.policy ?? config.acl!) as [[string, unknown]];
  const at = config.policy ? '$.policy' : '$.acl';
  if (config.policy) {
    const { operations, document } = compileOperations({ openapi: config.openapi, refRoot: config.refRoot, scheme, requiredScopes: config.requiredScopes });
    requireSecured(operations, scheme, at);
    refuseOwnershipCallback(operations, config.checkOwnership, FILE, DOCUMENT_LISTS);
    return { source: (given as PolicySource).connect({ scheme, operations, file: FILE }), operations, document, scheme };
  }
  const { data, document } = compileApi({ openapi: config.openapi, refRoot: config.refRoot, acl: given, scheme, strict: config.strict, requiredScopes: config.requiredScopes });
  requireSecured(data.operations, scheme, at);
  refuseOwnershipCallback(data.operations, config.checkOwnership, FILE, DOCUMENT_LISTS);
  return { source: Evaluator.createSync(data, { decisionCacheSize: config.decisionCacheSize }), operations: data.operations, document, scheme };
}

/** The document's security scheme names: a shadow candidate keyed by one that is not the guarded scheme is refused, not read as a role. */
function documentSchemes(document: Record<string, unknown>): string[] {
  const components = document.components as { securitySchemes?: Record<string, unknown> } | undefined;
  return Object.keys(components?.securitySchemes ?? {});
}

/** The shadow candidate is made as the active source would be from `acl` or `policy`. */
function candidateBuilders(config: z.infer<typeof optionsSchema>, scheme: string, operations: Record<string, OperationFacts>): CandidateBuilders {
  return {
    local: (acl) => {
      const { data } = compileApi({ openapi: config.openapi, refRoot: config.refRoot, acl, scheme, strict: config.strict, requiredScopes: config.requiredScopes });
      return Evaluator.createSync(data, { decisionCacheSize: config.decisionCacheSize });
    },
    connect: (source) => source.connect({ scheme, operations, file: FILE }),
  };
}

function requireSecured(operations: Record<string, OperationFacts>, scheme: string, at: string): void {
  if (Object.values(operations).some((operation) => operation.secured)) return;
  throw new ConfigError(FILE, at, `no operation of the document requires the scheme ${scheme}`, 'add security: [{ <scheme>: [] }] to the document or its operations');
}

/**
 * The path the routes after this middleware will match: the mount path plus `req.url`, which is
 * the target as sent unless an earlier middleware rewrote it. The target as sent must be one
 * that every router reads the same way (readTarget), and so must the path routed on.
 */
function routedPath(req: Request): string {
  const sent = req.originalUrl ?? req.url ?? '/';
  const target = readTarget(sent);
  const routed = `${req.baseUrl ?? ''}${req.url ?? '/'}`;
  return routed === sent ? target.pathname : readTarget(routed).pathname;
}

/** next() when the guard lets the request go on; a request it answered stops here. */
function goOn(allowed: boolean, next: () => void): void {
  if (allowed) next();
}

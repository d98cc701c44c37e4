import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { ownProperty, type VerifiedPayload } from '../../policy/request/build-input';
import { claimPathSchema } from '../../policy/request/claim-path';
import { compileAcl, compileOperations } from '../../policy/compile/compile-acl';
import { isPlainObject, loadDocument } from '../../policy/compile/documents/load-document';
import { mergeDeclarations } from '../../policy/compile/merge-declarations';
import { ConfigError } from '../../policy/compile/config-error';
import { operationKey, type OperationFacts } from '../../policy/compile/data-document';
import type { DecisionSource, PolicySource } from '../../policy/evaluate/decision-source';
import { denied, Evaluator, type Decision, type PolicyInput } from '../../policy/evaluate/evaluator';
import { parseWith } from '../../policy/compile/parse-with';
import { readTarget } from '../../policy/request/read-target';
import { RequestValidationError } from '../../policy/request/request-validation-error';
import { decisionOptions, type AclOptions, type DecisionOptions } from '../../guard/acl-options';
import { aclOptionsShape, policySourceSchema } from '../../guard/acl-options-schema';
import type { SchemaMatches } from '../../policy/compile/schema-matches';
import { authorize } from '../../guard/authorize';
import { attachedChallenges, challengesOf } from '../../token/challenge';
import { logAuthenticationFailure } from '../../guard/decision-log';
import { admittedByOtherScheme } from '../../guard/other-scheme';
import { NO_SCHEMES } from '../../guard/guard-request';
import { DOCUMENT_LISTS, refuseOwnershipCallback, withPlanOf } from '../../guard/list-operations';
import type { ListPlan } from '../../policy/evaluate/list-plan';
import { answerError } from '../../guard/error-answers';
import { reportRefusedCredentials } from '../../guard/refused-credentials';
import { MethodNotAllowedError, type SvcgateHttpError } from '../../guard/http-errors';
import { createPathMethods, type PathMethods } from '../../policy/request/path-methods';
import { credentialsMissing, credentialsRefused, NO_BEARER, NO_CREDENTIALS, policyDenied, policyUnavailable, requestRefused } from '../../guard/refusal-errors';
import { filterAttributes } from '../../guard/filter-attributes';
import { completeVerification, isPendingVerification, pendingChallenges, startCompletingVerifications } from '../../token/pending-verification';
import { sameValues } from '../../guard/same-values';
import { operationSecurity, schemesWithoutBearer } from '../../guard/security-alternatives';
import { hostRoutes } from './oas-host-routes';
import { verificationRequest } from '../../token/verification-request';
import { isPolicySource } from '../../guard/shadow/candidate-source';
import type { ShadowOptions, ShadowStatus } from '../../guard/shadow/shadow-options';
import { ShadowRunner } from '../../guard/shadow/shadow-runner';
import { shadowedScheme } from '../../guard/shadow/shadowed-scheme';

type Request = IncomingMessage & { params?: Record<string, string>; originalUrl?: string };
type Response = ServerResponse & { locals: { oas?: { security?: Record<string, unknown>; params?: Record<string, unknown>; body?: unknown; acl?: OasAcl } } };
type Next = (error?: unknown) => void;
type Handler = (req: Request, res: Response, next: Next) => void;
type ErrorHandler = (error: unknown, req: Request, res: Response, next: Next) => void;
/** The part of an Express app that @oas-tools/core hands to `register`. */
interface App {
  route: (path: string) => Record<string, (handler: Handler) => unknown>;
  use: (handler: ErrorHandler) => unknown;
}

/** What the controller finds in `res.locals.oas.acl` on an allowed request. */
export interface OasAcl {
  attributes: string[];
  role: string | null;
  possession: Decision['possession'];
  decision: Decision;
  filter: <T>(data: T) => T;
  /**
   * The schemes that let the request in: the bearer scheme when its payload decided, the
   * alternative's schemes when another one did (then the ACL was not asked: no attributes, and
   * `filter` keeps nothing), empty for anonymous callers.
   */
  schemes: readonly string[];
  /**
   * Present exactly on a list operation (`x-acl-list`): which items the caller may see (`all`, or
   * `some` with the values of each `anyOf` entry; a caller who may see none was refused with 403),
   * for `toSql`, `toMongo` or `matches` of `svcgate/list`. `none` for a caller another scheme let in.
   */
  list?: ListPlan;
}

interface Guard {
  scheme: string;
  /** `[scheme]`, frozen: the `schemes` of a request its payload decided. */
  schemes: readonly string[];
  operations: Record<string, OperationFacts>;
  evaluator: DecisionSource;
  /** The adapter's options, with the shadow runner when `shadow` is for this guard's scheme (one runner compares one source). */
  options: DecisionOptions;
}

/** Where a scheme's decisions come from, as `policy` or `acl` give it (a declaration with the name it is shown by). */
type SchemeSource = PolicySource | { declaration: unknown; aclSource?: string | undefined };

/** One guard's operation for a route and method. */
interface Check {
  guard: Guard;
  key: string;
  operation: OperationFacts;
  /** Schemes whose success means an alternative without this guard's scheme was met. */
  alternatives: ReadonlySet<string>;
}

/** Responses a refusal was answered on or passed on for: nothing may let their request go on. */
const refused = new WeakSet<object>();

/**
 * The BearerJWT registered on each Express app. @oas-tools/core creates the instance inside
 * `initialize` and keeps it, so the app is what users hold; keyed by it, two apps in one process
 * each find their own.
 */
const registeredOn = new WeakMap<object, BearerJWT>();

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const FILE = '<BearerJWT config>';

/** The config of `use(BearerJWT, config, position)`: the ACL of each bearer scheme, and the options every adapter shares. */
export interface OasAclOptions extends AclOptions {
  /**
   * `{ <schemeName>: declaration }`: the permission declaration of each guarded scheme, an object
   * or a JSON/YAML file path, compiled at start-up. Default: the schemes' `x-acl-config`.
   */
  acl?: Record<string, unknown>;
  /** In place of `acl`, per scheme: decisions from a `bundleConsumer(...)` or a `remoteOpa(...)`. Default: none. */
  policy?: Record<string, PolicySource>;
  /**
   * A candidate decided beside one guarded scheme's policy (see AclOptions.shadow). `source` is
   * what `acl`/`policy` take for that scheme, keyed by it (`{ bearerAuth: <candidate> }`), or
   * unkeyed when one scheme is guarded. A declaration is merged onto the scheme's `x-acl-config`
   * declaration as `acl` is. Read the counts with `BearerJWT.of(app).shadowStatus()`. Default: none.
   */
  shadow?: ShadowOptions;
}

const configShape = {
  acl: z.record(z.string(), z.unknown(), { error: 'acl must map scheme names to permission declarations' }).optional(),
  policy: z.record(z.string(), policySourceSchema, { error: 'policy must map scheme names to policy sources' }).optional(),
  ...aclOptionsShape,
};
// The interface and the shape must accept the same fields (see schema-matches.ts).
true satisfies SchemaMatches<z.ZodObject<typeof configShape>, OasAclOptions>;

// Other keys pass: @oas-tools/core hands over the whole `use` config.
const configSchema = z.object(configShape).passthrough();

/**
 * The access-control middleware for @oas-tools/core 3.x: `use(BearerJWT, config, 2)`. It reads
 * the ACL, compiles it at start-up (a bad one stops the start) and decides every request to an
 * operation guarded by a bearer scheme, from the payload the security handler verified.
 */
export class BearerJWT {
  private constructor(
    private readonly guards: Guard[],
    private readonly options: DecisionOptions,
    private readonly oasFile: Record<string, unknown>,
    /** The methods the document declares for a path (OpenAPI templates), asked only about a method a route does not declare. */
    private readonly pathMethods: PathMethods,
    private readonly shadow: ShadowRunner | undefined,
  ) {}

  /**
   * The BearerJWT that `oasTools.initialize(app, ...)` registered on `app`, or undefined before
   * then: how an app reads its `shadowStatus()`. With more than one in the host's chain (each
   * `use()` in the process adds one, for every app initialized after it), the first registered,
   * which is the one `use`d last when they share a position.
   */
  static of(app: object): BearerJWT | undefined {
    return registeredOn.get(app);
  }

  /** The shadow candidate's counts and first divergences; null without the `shadow` option. */
  shadowStatus(): ShadowStatus | null {
    return this.shadow?.status() ?? null;
  }

  /** The adapter's status: `shadow` as shadowStatus() gives it. */
  status(): { shadow: ShadowStatus | null } {
    return { shadow: this.shadowStatus() };
  }

  /** Called by @oas-tools/core with the dereferenced document (paths in Express form) and the `use` config, an {@link OasAclOptions}. */
  static async initialize(oasFile: Record<string, unknown>, config: unknown): Promise<BearerJWT> {
    const options = parseWith(configSchema, config ?? {}, FILE, [], 'pass { acl: { <scheme>: <declaration or file> }, roleBinding, checkOwnership }');
    const openapi = { ...oasFile, paths: templatePaths(oasFile.paths) };
    checkRoutableNames(openapi.paths);
    const schemes = (oasFile.components as { securitySchemes?: Record<string, { 'x-acl-config'?: unknown }> } | undefined)?.securitySchemes ?? {};

    const guards: Omit<Guard, 'options'>[] = [];
    const documentConfigs = new Map<string, DocumentConfig>();
    let roleBinding = options.roleBinding;
    for (const [scheme, definition] of Object.entries(schemes)) {
      const inDocument = readDocumentConfig(definition['x-acl-config'], scheme);
      documentConfigs.set(scheme, inDocument);
      const source = options.policy?.[scheme];
      const chosen = chosenDeclaration(options.acl?.[scheme], inDocument, scheme);
      if (source !== undefined && options.acl?.[scheme] !== undefined) {
        throw new ConfigError(FILE, `$.policy.${scheme}`, `the scheme ${scheme} has both a declaration in acl and a source in policy`, 'give one of them');
      }
      if (source === undefined && chosen.declaration === undefined) continue;
      roleBinding ??= inDocument.roleBinding;
      const { operations, evaluator } = await connectScheme(source ?? chosen, scheme, openapi, options);
      refuseOwnershipCallback(operations, options.checkOwnership, FILE, DOCUMENT_LISTS);
      guards.push({ scheme, schemes: Object.freeze([scheme]), operations, evaluator });
    }
    for (const option of ['acl', 'policy'] as const) {
      const unknown = Object.keys(options[option] ?? {}).filter((scheme) => !(scheme in schemes));
      if (unknown.length > 0) throw new ConfigError(FILE, `$.${option}.${unknown[0]}`, `the document has no security scheme ${unknown[0]}`, `use one of: ${Object.keys(schemes).join(', ')}`);
    }
    if (guards.length === 0) {
      throw new ConfigError(FILE, '$.acl', 'no permission declaration is given', 'pass acl: { <bearer scheme>: <declaration or file> } (or policy: { <bearer scheme>: <source> }) to use(), or x-acl-config in the security scheme');
    }
    const shared = decisionOptions({ ...options, roleBinding });
    let shadow: ShadowRunner | undefined;
    let shadowed: string | undefined;
    if (options.shadow) {
      const { scheme, candidate } = shadowedScheme(options.shadow.source, guards.map((guard) => guard.scheme), Object.keys(schemes), FILE);
      // Made as the scheme's own source would be from this candidate in `policy` or `acl`.
      const given = isPolicySource(candidate) ? candidate : chosenDeclaration(candidate, documentConfigs.get(scheme)!, scheme);
      const { evaluator } = await connectScheme(given, scheme, openapi, options);
      shadow = new ShadowRunner(guards.find((guard) => guard.scheme === scheme)!.evaluator, evaluator, options.shadow, shared.decisionLog);
      shadowed = scheme;
    }
    startCompletingVerifications();
    const withOptions = guards.map((guard) => ({ ...guard, options: guard.scheme === shadowed ? { ...shared, shadow } : shared }));
    return new BearerJWT(withOptions, shared, oasFile, createPathMethods(openapi.paths), shadow);
  }

  /** Registered by @oas-tools/core once per path, like its own middleware: a route per server prefix. */
  register(app: App, path: string): void {
    if (!registeredOn.has(app)) registeredOn.set(app, this);
    const item = (this.oasFile.paths as Record<string, Record<string, unknown>>)[path] ?? {};
    // A path whose operations ask for no security runs no security handler: there is no 401 to
    // challenge, no verification to complete and nothing to decide. Its layers would only be
    // walked by every request to the paths registered after it (Express tries layers in order).
    if (!METHODS.some((method) => Object.hasOwn(item, method) && operationSecurity(this.oasFile, item, method).length > 0)) return;
    const template = openApiTemplate(path);
    // What to check for each method the route can be called with, worked out here, once.
    const checksByMethod = new Map(METHODS.map((method) => [method.toUpperCase(), this.checksFor(method, template, item)]));
    const decideRequest: Handler = (req, res, next) => void this.handle(checksByMethod.get(req.method ?? 'GET') ?? [], template, req, res, next);
    const addChallenge: ErrorHandler = (error, req, res, next) => this.challenge(checksByMethod.get(req.method ?? 'GET') ?? [], template, error, req, res, next);
    // Express routes never see errors raised before them, so the security step's 401s are met by
    // an app-level error layer. Without a path, Express skips it at once on a request without an
    // error, where a path-mounted one is matched, its parameters decoded and the URL trimmed on
    // every request. It sees this path's errors (errors travel forward only, and @oas-tools/core's
    // error handler after each path's layers passes on only those whose answer was already sent,
    // which challenge() leaves alone), and it comes before the route layer: the security step
    // calls next() once more after its next(error), and Express goes on from the layer that
    // answered, so that call must meet decideRequest (which stops an answered request), not the
    // controller after it.
    app.use(addChallenge);
    // Every request walks the layers of the paths before its own, so each route gets one layer
    // for all its methods (app.route), not one per method.
    const methodsByRoute = hostRoutes(this.oasFile, item, path);
    for (const [route, methods] of methodsByRoute) {
      // One handler for every method (no more layers than before): the declared ones are decided,
      // the others answered 405 or passed on (see notDeclared). Express answers HEAD with GET's route.
      const declared = new Set(methods.map((method) => method.toUpperCase()));
      if (declared.has('GET')) declared.add('HEAD');
      const prefixLength = route.length - path.length;
      app.route(route).all!((req, res, next) => (declared.has(req.method ?? 'GET') ? decideRequest(req, res, next) : this.notDeclared(prefixLength, req, res, next)));
    }
  }

  /**
   * A method the route's path does not declare: passed on when another documented path the request
   * path matches declares it (`DELETE /users/me` meets the route of `/users/{id}` first), and for
   * OPTIONS (a CORS preflight, or Express's own OPTIONS answer); else 405 with `Allow`, where the
   * host would answer 404.
   */
  private notDeclared(prefixLength: number, req: Request, res: Response, next: Next): void {
    const method = req.method ?? 'GET';
    if (method === 'OPTIONS') return next();
    const pathname = (req as { path?: string }).path ?? '/';
    let allowed: readonly string[] | undefined;
    try {
      allowed = this.pathMethods(pathname.slice(prefixLength) || '/');
    } catch (error) {
      return this.refuse(res, requestRefused(error as RequestValidationError), next);
    }
    if (allowed === undefined || allowed.includes(method)) return next();
    this.refuse(res, new MethodNotAllowedError({ allowed, description: `${pathname} answers ${allowed.join(', ')}, not ${method}` }), next);
  }

  /** The secured operations a request to `template` with `method` is, one per guard that has it. */
  private checksFor(method: string, template: string, item: unknown): Check[] {
    const checks: Check[] = [];
    for (const guard of this.guards) {
      const key = findKey(guard.operations, method, template);
      const operation = key === undefined ? undefined : guard.operations[key];
      if (key === undefined || !operation?.secured) continue;
      checks.push({ guard, key, operation, alternatives: schemesWithoutBearer(operationSecurity(this.oasFile, item, operation.method), guard.scheme) });
    }
    return checks;
  }

  private async handle(checks: Check[], template: string, req: Request, res: Response, next: Next): Promise<void> {
    // @oas-tools/core 3.1.0 calls next() again after its security step's 401, which may be
    // answered already, or on its way to the app's error handler (errors: 'next').
    if (res.headersSent || refused.has(res)) return;
    let withoutCredentials: ReadonlyMap<string, readonly string[]> | undefined;
    try {
      if (hasPending(res.locals.oas?.security)) withoutCredentials = await completePending(res.locals.oas!.security!, req);
    } catch (error) {
      // The handler's SecurityError or JsonWebTokenError: a 401 with its challenge, as the error layer answers the host's.
      return this.challenge(checks, template, error, req, res, next);
    }
    const { exposeReasons } = this.options;
    try {
      if (checks.length > 0) readTarget(req.originalUrl ?? req.url ?? '/');
      const oas = res.locals.oas;
      for (const { guard, key, operation, alternatives } of checks) {
        const met = metAlternative(oas?.security, alternatives);
        if (met.length > 0) {
          const admitted = admittedByOtherScheme(this.options.decisionLog, guard.evaluator, key, operation, met);
          (res.locals.oas ??= {}).acl = toLocals(admitted, met);
          continue;
        }
        const payload = verifiedPayload(oas?.security, guard.scheme);
        if (payload === null) return this.refuse(res, policyDenied(denied('the security handler gave no payload object'), exposeReasons), next);
        const confirm = (input: PolicyInput) => sameValues(operation, input, (param) => ownProperty(param.in === 'body' ? oas?.body : oas?.params, param.name), '@oas-tools/core');
        const pending = authorize(guard.evaluator, { key, operation, pathParams: req.params ?? {} }, req, payload, guard.options, { confirm });
        const { decision, refused } = pending instanceof Promise ? await pending : pending;
        if (refused) return this.refuse(res, requestRefused(refused, decision), next);
        if (decision.unavailable) return this.refuse(res, policyUnavailable(decision, exposeReasons), next);
        if (!decision.allow) {
          const challenges = withoutCredentials?.get(guard.scheme);
          if (challenges === undefined) return this.refuse(res, policyDenied(decision, exposeReasons), next);
          // As @oas-tools/core answers a missing header for an http scheme: 401, not 403.
          logAuthenticationFailure(this.options.decisionLog, guard.evaluator, key, NO_BEARER);
          return this.refuse(res, credentialsMissing(NO_BEARER, challenges, NO_CREDENTIALS, decision), next);
        }
        (res.locals.oas ??= {}).acl = toLocals(decision, payload === undefined ? NO_SCHEMES : guard.schemes);
      }
      next();
    } catch (error) {
      if (error instanceof RequestValidationError) return this.refuse(res, requestRefused(error), next);
      this.refuse(res, policyDenied(denied(`authorization failed: ${error instanceof Error ? error.message : String(error)}`), exposeReasons), next);
    }
  }

  /**
   * Answers a refusal as the `errors` option says. Answered here, the host's error handler never
   * sees it; with `'next'` it travels on, through the error layers of the paths after, to the
   * app's error middleware (the host's own error handler turned off) or to a customHandler.
   */
  private refuse(res: Response, error: SvcgateHttpError, next: Next): void {
    refused.add(res);
    answerError(res, error, this.options.errors, next);
  }

  /**
   * The 401s of the security step (and of completed verifications), which @oas-tools/core
   * raises as SecurityError or JsonWebTokenError before the route layer, so that this error layer
   * is where they are seen: logged, and answered as every other refusal, with the challenge the
   * host would not send. Errors of operations no bearer guard decides keep the host's answer,
   * with the challenge added.
   */
  private challenge(checks: Check[], template: string, error: unknown, req: Request, res: Response, next: Next): void {
    const name = (error as { name?: unknown } | null)?.name;
    if (res.headersSent || (name !== 'SecurityError' && name !== 'JsonWebTokenError')) return next(error);
    // The host's own SecurityError for a missing header carries no challenges and no description.
    const withoutCredentials = attachedChallenges(error) === undefined && req.headers.authorization === undefined;
    const [check] = checks;
    const evaluator = (check?.guard ?? this.guards[0]!).evaluator;
    const operation = check?.key ?? operationKey(req.method ?? 'GET', template);
    const refusal = withoutCredentials ? credentialsMissing(NO_BEARER, 'Bearer', NO_CREDENTIALS) : credentialsRefused(error);
    reportRefusedCredentials(this.options.decisionLog, evaluator, operation, refusal);
    // The security step calls next() once more after this error (see register): with 'next', the
    // error goes on after that call has met decideRequest, which stops it, so that Express does
    // not take that call for the end of the chain and answer 404 before an app error handler that
    // answers later has done so.
    if (check !== undefined) return this.refuse(res, refusal, (passed) => setImmediate(next, passed));
    res.setHeader('WWW-Authenticate', withoutCredentials ? 'Bearer' : challengesOf(error));
    next(error);
  }
}

/** A scheme's decisions, from the source its `policy` gives, or its declaration compiled with the document at start-up. */
async function connectScheme(given: SchemeSource, scheme: string, openapi: Record<string, unknown>, options: Pick<OasAclOptions, 'strict' | 'decisionCacheSize'>): Promise<{ operations: Record<string, OperationFacts>; evaluator: DecisionSource }> {
  if (isPolicySource(given)) {
    const { operations } = compileOperations({ openapi, scheme });
    return { operations, evaluator: given.connect({ scheme, operations, file: FILE }) };
  }
  const data = compileAcl({ openapi, acl: given.declaration, aclSource: given.aclSource, scheme, strict: options.strict });
  return { operations: data.operations, evaluator: await Evaluator.create(data, { decisionCacheSize: options.decisionCacheSize }) };
}

function hasPending(security: Record<string, unknown> | undefined): boolean {
  for (const scheme in security) if (isPendingVerification(security[scheme])) return true;
  return false;
}

/**
 * Completes the verifications the security handlers left pending (see PendingVerification) and
 * puts each payload in its place; a scheme whose request sent no credentials is removed, as not
 * satisfied, and returned with the challenges of its 401.
 */
async function completePending(security: Record<string, unknown>, req: Request): Promise<Map<string, readonly string[]>> {
  const withoutCredentials = new Map<string, readonly string[]>();
  for (const [scheme, value] of Object.entries(security)) {
    if (!isPendingVerification(value)) continue;
    const payload = await completeVerification(value, verificationRequest(req));
    if (payload !== undefined) {
      security[scheme] = payload;
    } else {
      delete security[scheme];
      withoutCredentials.set(scheme, pendingChallenges(value));
    }
  }
  return withoutCredentials;
}

/** OpenAPI templates back from the Express form @oas-tools/core hands over (`/users/:id`). */
function templatePaths(paths: unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries((paths ?? {}) as Record<string, unknown>).map(([path, item]) => [openApiTemplate(path), item]));
}

/**
 * @oas-tools/core writes `{name}` as `:name`; Express reads a parameter name as letters, digits
 * and `_` only, so `/dates/:year-:month-:day` is three parameters, as `{year}-{month}-{day}` is.
 */
function openApiTemplate(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/**
 * A path parameter named `{user-id}` reaches Express as `:user-id`, which it reads as the
 * parameter `user` followed by the text `-id`: the route would match other requests than the
 * document describes, and the guard would decide on another value. Refuse it at start-up.
 */
function checkRoutableNames(paths: Record<string, unknown>): void {
  for (const [path, item] of Object.entries(paths)) {
    for (const [at, value] of Object.entries((item ?? {}) as Record<string, unknown>)) {
      const parameters = (at === 'parameters' ? value : (value as { parameters?: unknown } | null)?.parameters) as { name?: unknown; in?: unknown }[] | undefined;
      if (!Array.isArray(parameters)) continue;
      for (const parameter of parameters) {
        if (parameter?.in !== 'path' || typeof parameter.name !== 'string' || /^[A-Za-z_][A-Za-z0-9_]*$/.test(parameter.name)) continue;
        throw new ConfigError('<OpenAPI document>', `$.paths["${path}"]`, `the path parameter ${parameter.name} cannot be routed by @oas-tools/core, which writes it as :${parameter.name} and Express reads only letters, digits and _ as its name`, 'rename the parameter with letters, digits and _ only (e.g. userId)');
      }
    }
  }
}

function findKey(operations: Record<string, OperationFacts>, method: string, template: string): string | undefined {
  const key = operationKey(method, template);
  if (operations[key]) return key;
  // Express answers HEAD with the GET route.
  return method.toUpperCase() === 'HEAD' && operations[operationKey('GET', template)] ? operationKey('GET', template) : undefined;
}

/**
 * @oas-tools/core records the result of each security requirement it found satisfied in
 * `res.locals.oas.security` (one scheme at a time: a later one replaces an earlier). A scheme
 * recorded there that belongs only to alternatives without the bearer scheme shows that such an
 * alternative was met.
 */
function metAlternative(security: Record<string, unknown> | undefined, alternatives: ReadonlySet<string>): readonly string[] {
  if (security === undefined || alternatives.size === 0) return NO_SCHEMES;
  // Frozen: res.locals.oas.acl.schemes and the decision-log event share it.
  return Object.freeze(Object.keys(security).filter((scheme) => alternatives.has(scheme) && Boolean(security[scheme])));
}

/** undefined: no verified payload (anonymous); null: something that is not a payload (deny). */
function verifiedPayload(security: Record<string, unknown> | undefined, scheme: string): VerifiedPayload | undefined | null {
  const value = security?.[scheme];
  if (value === undefined) return undefined;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as VerifiedPayload) : null;
}

function toLocals(decision: Decision, schemes: readonly string[]): OasAcl {
  return withPlanOf<OasAcl>({ attributes: decision.attributes, role: decision.role, possession: decision.possession, decision, filter: (data) => filterAttributes(data, decision.attributes), schemes }, decision);
}

const documentConfigSchema = z.object({ acl: z.record(z.string(), z.unknown()).optional(), roleBinding: claimPathSchema('roleBinding').optional() }).strict();

type DocumentConfig = z.infer<typeof documentConfigSchema> & { declaration?: Record<string, unknown> };

const DOCUMENT = '<OpenAPI document>';

/**
 * x-acl-config holds svcgate's configuration (`{ acl, roleBinding }`) or, as @oas-tools/auth
 * 1.1.0 documents it, the permission declaration itself (roles at the top).
 */
function readDocumentConfig(value: unknown, scheme: string): DocumentConfig {
  if (value === undefined) return {};
  const at = ['components', 'securitySchemes', scheme, 'x-acl-config'];
  if (!isPlainObject(value)) throw new ConfigError(DOCUMENT, `$.${at.join('.')}`, 'x-acl-config is not an object', 'write the permission declaration there, or { acl: { <scheme>: <file or declaration> }, roleBinding: <claim> }');
  const keys = Object.keys(value);
  if (keys.length === 0 || !keys.every((key) => key === 'acl' || key === 'roleBinding')) return { declaration: value };
  const config = parseWith(documentConfigSchema, value, DOCUMENT, at, 'write x-acl-config: { acl: { <scheme>: <file or declaration> }, roleBinding: <claim> }');
  const other = Object.keys(config.acl ?? {}).find((name) => name !== scheme);
  if (other !== undefined) throw new ConfigError(DOCUMENT, `$.${at.join('.')}.acl.${other}`, `the x-acl-config of ${scheme} declares the ACL of ${other}`, `name the scheme it sits in: acl: { ${scheme}: ... }`);
  return config;
}

/**
 * The declaration a scheme is guarded by: the use() config's wins over x-acl-config's `acl`; a
 * declaration written in x-acl-config itself has the use() config's merged onto it.
 */
function chosenDeclaration(fromUse: unknown, inDocument: DocumentConfig, scheme: string): { declaration: unknown; aclSource?: string } {
  if (inDocument.declaration === undefined) return { declaration: fromUse ?? inDocument.acl?.[scheme] };
  const at = `x-acl-config of ${scheme} in the OpenAPI document`;
  if (fromUse === undefined) return { declaration: inDocument.declaration, aclSource: `<${at}>` };
  const loaded = loadDocument(fromUse, 'ACL');
  return { declaration: mergeDeclarations(inDocument.declaration, loaded.value), aclSource: `<${at}, merged with ${loaded.file}>` };
}

export { BearerJWT as OASBearerJWT };

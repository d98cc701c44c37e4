import { z } from 'zod';
import { decisionOptions, type AclOptions } from '../guard/acl-options';
import { aclOptionsShape, policySourceSchema } from '../guard/acl-options-schema';
import type { BearerJwtHandler } from '../token/bearer-jwt';
import '../guard/express-request';
import { answerError } from '../guard/error-answers';
import { guardRequest, type Guard, type GuardedRequest } from '../guard/guard-request';
import { requestRefused } from '../guard/refusal-errors';
import { sameValues } from '../guard/same-values';
import { refuseOwnershipCallback, type ListDeclarationWords } from '../guard/list-operations';
import { ownProperty } from '../policy/request/build-input';
import { claimPathSchema } from '../policy/request/claim-path';
import { ANONYMOUS_DEFAULT_KEY, type AnonymousDefault } from '../policy/compile/anonymous-default';
import { compileAcl, compileOperations } from '../policy/compile/compile-acl';
import { ConfigError } from '../policy/compile/config-error';
import { operationKey, type DataDocument, type OperationFacts } from '../policy/compile/data-document';
import type { DecisionSource, PolicySource } from '../policy/evaluate/decision-source';
import { Evaluator, type PolicyInput } from '../policy/evaluate/evaluator';
import { thenOrNow } from '../policy/evaluate/then-or-now';
import type { OperationMatch } from '../policy/request/match-operation';
import { parseWith } from '../policy/compile/parse-with';
import type { SchemaMatches } from '../policy/compile/schema-matches';
import { readTarget } from '../policy/request/read-target';
import type { RequestValidationError } from '../policy/request/request-validation-error';
import { readsBody, type HttpMethod } from './http-method';
import { checkListOwners, type DescribedRoute } from './list-owners';
import type { Interceptor } from './interceptors';
import type { SvcRoute } from './routes';
import { serviceArgument, type SvcRequestState } from './service-argument';
import type { RoutesOpenApi } from './routes-openapi';
import { BIND_TO_API, type BindableInterceptor } from './svc-api';
import { candidateSource, type CandidateBuilders } from '../guard/shadow/candidate-source';
import type { ShadowOptions, ShadowStatus } from '../guard/shadow/shadow-options';
import { ShadowRunner } from '../guard/shadow/shadow-runner';

export interface SvcAclOptions extends AclOptions {
  /** The verifier, from bearerJwt(config). */
  handler: BearerJwtHandler;
  /** The permission declaration (object or JSON/YAML file); resources are route paths such as `/api/user-service/get-user`. Give `acl` or `policy`, exactly one. */
  acl?: unknown;
  /**
   * In place of `acl`: decisions from a bundle (`bundleConsumer`) or a remote OPA (`remoteOpa`),
   * whose data was compiled for this API's OpenAPI description (`svcApi.openapi()`), scheme `bearerAuth`.
   * Give `acl` or `policy`, exactly one.
   */
  policy?: PolicySource;
  /** `{ "<instance>.<method>": { <argument field>: <claim path> } }`: the fields `own` grants compare with claims. Default: none. */
  owners?: Record<string, Record<string, string>>;
  /**
   * Keep only the granted attributes of each method's result (`["*", "!pin"]` drops `pin`, in
   * arrays too) before after-interceptors see it and it is sent, as `req.auth.filter` would.
   * Default true.
   */
  filterResults?: boolean;
  /**
   * A candidate decided beside the active policy (see AclOptions.shadow): `source` is what `acl`
   * or `policy` take (a declaration compiled with the routes' description when the app is built,
   * or a `bundleConsumer`/`remoteOpa`). Read the counts with the interceptor's `shadowStatus()`.
   * Default: none.
   */
  shadow?: ShadowOptions;
}

/** The interceptor svcAcl returns: register it with `interceptAll` or `intercept`. */
export interface SvcAclInterceptor extends Interceptor {
  /**
   * The shadow candidate's counts and first divergences; null without the `shadow` option, and
   * until the app is built (the candidate is compiled with the routes then).
   */
  shadowStatus(): ShadowStatus | null;
  /** The adapter's status: `shadow` as shadowStatus() gives it. */
  status(): { shadow: ShadowStatus | null };
}

const SCHEME = 'bearerAuth';
/**
 * svcAcl's ACL grants callers without a role only what its `anonymous` declares: every public
 * method is a route, and the seed's default would open each GET route without arguments.
 */
const ANONYMOUS_DEFAULT = 'none' satisfies AnonymousDefault;
/** SvcApi routes have no path parameters; one frozen object serves every request. */
const NO_PATH_PARAMS: Record<string, string> = Object.freeze({});
const FILE = '<svcAcl options>';
/** What checkOwnership's ConfigError tells an app with list methods to write (see refuseOwnershipCallback). */
const SVC_LISTS: ListDeclarationWords = { bind: "name the item method's owned fields in owners, bound to token claims", declaration: 'static lists entry' };

const optionsSchema = z
  .object({
    handler: z.custom<BearerJwtHandler>((value) => typeof value === 'function', { error: 'handler must be the function bearerJwt(config) returns' }),
    acl: z.unknown().optional(),
    policy: policySourceSchema.optional(),
    owners: z
      .record(z.string(), z.record(z.string(), claimPathSchema('an owners claim')))
      .refine((owners) => Object.keys(owners).every((key) => /^[^.]+\.[^.]+$/.test(key)), { error: 'owners keys are "<instance>.<method>"' })
      .default({}),
    filterResults: z.boolean().default(true),
    ...aclOptionsShape,
  })
  .strict()
  .refine((options) => (options.acl === undefined) !== (options.policy === undefined), { error: 'give either acl (a local declaration) or policy (a bundle or remote OPA), exactly one of them' });

// The interface and the schema must accept the same fields (see schema-matches.ts).
true satisfies SchemaMatches<typeof optionsSchema, SvcAclOptions>;

/**
 * An interceptor that guards SvcApi routes with a bearer JWT and the policy: register it with
 * `interceptAll` (or per service with `intercept`; an after-interceptor would decide once the method
 * had run, and is a ConfigError). The ACL is compiled against the API's own
 * OpenAPI description when the app is built, so a bad ACL fails at start-up.
 */
export function svcAcl(options: SvcAclOptions): SvcAclInterceptor {
  const config = parseWith(optionsSchema, options, FILE, [], 'see svcAcl in docs/services-as-routes.md');
  // Settled here, not when the app is built: NODE_ENV is read when the adapter is created.
  const guardOptions = decisionOptions(config);
  let guard: Guard | undefined;
  let shadow: ShadowRunner | undefined;
  // Each route's operation, found once when the app is built.
  const operations = new Map<SvcRoute, OperationMatch>();

  // Not async: a request the guard decides at once (see guardRequest) goes on within this call.
  const interceptor: BindableInterceptor = (req, res, next) => {
    const route = (res.locals.svc as { route: SvcRoute }).route;
    const found = operations.get(route);
    if (!guard || !found) return next(new Error(`svcAcl: ${operationKey(route.httpMethod, route.path)} was not compiled; register svcAcl before the app is built`));
    try {
      readTarget(req.originalUrl);
    } catch (error) {
      return answerError(res, requestRefused(error as RequestValidationError), guardOptions.errors, next);
    }
    const state = res.locals.svc as SvcRequestState;
    let argument: unknown;
    try {
      argument = serviceArgument(req, state);
    } catch (error) {
      return next(error);
    }
    // The method gets its argument through its zod schema, which may change a value: decide on what it gets.
    const confirm = (input: PolicyInput) => sameValues(found.operation, input, (param) => ownProperty(argument, param.name), `${route.instance}.${route.method}`);
    const goOn = (allowed: boolean) => {
      if (!allowed) return;
      if (config.filterResults) state.resultFilter = (req as GuardedRequest).auth!.filter;
      next();
    };
    return thenOrNow(guardRequest(guard, found, req, res, next, false, { confirm, query: state.argument!.query }), goOn);
  };
  interceptor[BIND_TO_API] = (openapi, { routes, unrouted }, registeredWith) => {
    if (registeredWith === 'interceptAfter' || registeredWith === 'interceptAllAfter') {
      throw new ConfigError(FILE, '$', `svcAcl is registered with ${registeredWith}, so it would decide after the method has run (for a caller it then refuses too)`, 'register it with interceptAll, or with intercept for some services or methods');
    }
    const described = withOwners(withBearerScheme(openapi), config.owners, unrouted);
    const { source, operations: compiled } = connectSource(config, described);
    shadow = config.shadow && new ShadowRunner(source, candidateSource(config.shadow.source, '$.shadow.source', FILE, candidateBuilders(config, described, compiled)), config.shadow, config.decisionLog);
    guard = { evaluator: source, handler: config.handler, options: { ...guardOptions, shadow }, schemes: Object.freeze([SCHEME]) };
    for (const route of routes) {
      const key = operationKey(route.httpMethod, route.path);
      const operation = compiled[key];
      if (operation) operations.set(route, { key, operation, pathParams: NO_PATH_PARAMS });
    }
  };
  const shadowStatus = () => shadow?.status() ?? null;
  return Object.assign(interceptor, { shadowStatus, status: () => ({ shadow: shadowStatus() }) });
}

function connectSource(config: z.infer<typeof optionsSchema>, openapi: RoutesOpenApi): { source: DecisionSource; operations: Record<string, OperationFacts> } {
  if (config.policy) {
    const { operations } = compileOperations({ openapi, scheme: SCHEME });
    refuseOwnershipCallback(operations, config.checkOwnership, FILE, SVC_LISTS);
    return { source: connected(config.policy, operations), operations };
  }
  const data = compiledAcl(config, openapi, config.acl);
  refuseOwnershipCallback(data.operations, config.checkOwnership, FILE, SVC_LISTS);
  return { source: Evaluator.createSync(data, { decisionCacheSize: config.decisionCacheSize }), operations: data.operations };
}

/** A declaration compiled for the routes, anonymous callers granted only what it declares. */
function compiledAcl(config: z.infer<typeof optionsSchema>, openapi: RoutesOpenApi, acl: unknown): DataDocument {
  return compileAcl({ openapi, acl, scheme: SCHEME, strict: config.strict, anonymousDefault: ANONYMOUS_DEFAULT });
}

function connected(source: PolicySource, operations: Record<string, OperationFacts>): DecisionSource {
  // A bundle or OPA data compiled with the seed's default is refused: it would open the GET routes to anyone.
  return source.connect({ scheme: SCHEME, operations, file: FILE, anonymousDefault: ANONYMOUS_DEFAULT });
}

/** The shadow candidate is made as the active source would be from `acl` or `policy`, with the same description and anonymous default. */
function candidateBuilders(config: z.infer<typeof optionsSchema>, openapi: RoutesOpenApi, operations: Record<string, OperationFacts>): CandidateBuilders {
  return {
    local: (acl) => Evaluator.createSync(compiledAcl(config, openapi, acl), { decisionCacheSize: config.decisionCacheSize }),
    connect: (source) => connected(source, operations),
  };
}

/** The routes' description as svcAcl compiles it: every route needs the bearer scheme, and anonymous gets only what the ACL declares. */
function withBearerScheme(openapi: RoutesOpenApi): RoutesOpenApi {
  const described: RoutesOpenApi = {
    ...openapi,
    security: [{ [SCHEME]: [] }],
    components: { ...openapi.components, securitySchemes: { [SCHEME]: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  };
  // An OpenAPI extension, so that the CLI compiles a bundle of this document with the same default.
  return Object.assign(described, { [ANONYMOUS_DEFAULT_KEY]: ANONYMOUS_DEFAULT });
}

type Operation = { parameters?: Record<string, unknown>[]; requestBody?: { content: Record<string, { schema: { properties?: Record<string, Record<string, unknown>> } }> } };

/**
 * Marks owned argument fields with x-acl-binding: query parameters, or properties of the JSON body.
 * `unrouted` (see RouteTable) says why a target is no route when the container knows.
 */
function withOwners(openapi: RoutesOpenApi, owners: Record<string, Record<string, string>>, unrouted: ReadonlyMap<string, string> = new Map()): RoutesOpenApi {
  const operations = new Map<string, { method: string; operation: Operation; path: string }>();
  // Item route path -> the list method's route that lists it (static lists).
  const listers = new Map<string, DescribedRoute>();
  for (const [path, item] of Object.entries(openapi.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, Operation & Partial<DescribedRoute>>)) {
      if (operation.operationId !== undefined) operations.set(operation.operationId, { method: method.toUpperCase(), operation, path });
      const list = operation['x-acl-list'];
      if (list !== undefined) listers.set(list.item, operation as DescribedRoute);
    }
  }
  for (const [target, fields] of Object.entries(owners)) {
    const found = operations.get(target);
    if (!found) {
      const why = unrouted.get(target) ?? unrouted.get(target.split('.')[0]!);
      if (why !== undefined) throw new ConfigError(FILE, `$.owners["${target}"]`, `${target} is no route of the API (${why})`, 'remove the entry: other services call that method, and no request to it is decided');
      const example = operations.keys().next().value;
      throw new ConfigError(FILE, `$.owners["${target}"]`, `${target} is no route of the API`, `use "<instance>.<method>", e.g. ${example ? `"${example}"` : '"userService.getUser"'}`);
    }
    const { method, operation, path } = found;
    checkListOwners(FILE, operation as Operation & DescribedRoute, fields, listers.get(path));
    for (const [field, claim] of Object.entries(fields)) {
      if (readsBody(method as HttpMethod)) {
        const schema = operation.requestBody!.content['application/json']!.schema;
        schema.properties = { ...schema.properties, [field]: { ...schema.properties?.[field], 'x-acl-binding': claim } };
      } else {
        const parameters = (operation.parameters ??= []);
        const existing = parameters.find((parameter) => parameter.name === field);
        if (existing) existing['x-acl-binding'] = claim;
        else parameters.push({ name: field, in: 'query', schema: { type: 'string' }, 'x-acl-binding': claim });
      }
    }
  }
  return openapi;
}

/**
 * The OpenAPI document svcAcl compiles for `api` with these `owners` (its bearer scheme
 * `bearerAuth`, the owned fields marked, and `x-acl-anonymous-default: none`): write it to a file
 * and build the bundle of a `policy` source from it (`svcgate bundle --openapi <it> --acl <acl>
 * --scheme bearerAuth`), which then decides anonymous callers as svcAcl does.
 */
export function svcAclOpenApi(api: { openapi(): RoutesOpenApi }, owners: Record<string, Record<string, string>> = {}): RoutesOpenApi {
  return withOwners(withBearerScheme(api.openapi()), owners);
}

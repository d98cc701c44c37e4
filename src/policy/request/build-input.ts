import { claimPath, readClaim, type ClaimPath } from './claim-path';
import type { OperationFacts, ParamSpec } from '../compile/data-document';
import { ownedParams } from './owned-params';
import type { PolicyInput } from '../evaluate/evaluator';
import { RequestValidationError } from './request-validation-error';
import { serializeBodyValue, serializeClaimValue, serializeRequestValue } from './serialize-param';
import { scopesForOperation } from './token-scopes';

/** Query values by name, as the handler will get them; a URLSearchParams fits. */
export interface QueryValues {
  getAll(name: string): string[];
}

/** Cookie values by name, as the handler will get them; a Map fits. */
export interface CookieValues {
  get(name: string): string | undefined;
}

/** The parts of a request that parameters are read from, as an adapter has them. */
export interface RequestParts {
  /** Percent-decoded path parameter values by template name. Default: none. */
  pathParams?: Record<string, string>;
  /** The query's values by name (a URLSearchParams fits), for owned query parameters. Default: none. */
  query?: QueryValues;
  /** Header values keyed in lower case, as Node gives them. Default: none. */
  headers?: Record<string, string | string[] | undefined>;
  /** The cookies' values by name (a Map fits), for owned cookie parameters. Default: none. */
  cookies?: CookieValues;
  /** The parsed JSON body, for owned body properties. Default: none. */
  body?: unknown;
}

/** A verified JWT payload; never a decoded but unverified one. */
export type VerifiedPayload = Record<string, unknown>;

const ROLE: ClaimPath = ['role'];

/**
 * Builds the policy input for one request. Only owned parameters are serialized, and the token's
 * scopes are copied only for operations that need some: the policy needs nothing else, and a
 * smaller input is faster to hand to the Wasm module. An owned value that does not fit its schema
 * (a word for an integer, a repeated scalar, an object) is refused with RequestValidationError:
 * the handler, or a validator after the guard, would read it some other way than the policy, so
 * no decision is made on it. `roleBinding` and each `binding` are claim paths (claim-path.ts).
 */
export function buildInput(
  key: string,
  operation: OperationFacts,
  request: RequestParts,
  payload: VerifiedPayload | undefined,
  roleBinding = 'role',
): PolicyInput {
  const input: PolicyInput = { operation: key, params: {}, claims: {} };
  // Only an absent claim falls back to `role`; a path through something that is not an object gives null, which the policy denies.
  const bound = readClaim(payload, claimPath(roleBinding));
  const role = bound === undefined ? readClaim(payload, ROLE) : bound;
  // A role named twice grants nothing more, and each copy would be one more list the policy unites
  // with every other (a token with two roles repeated 500 times cost a decision 76 s, not 36 ms).
  if (role !== undefined) input.role = Array.isArray(role) ? [...new Set(role)] : role;
  if (operation.secured && operation.scopes.length > 0) input.scopes = scopesForOperation(operation, payload);

  for (const { key: k, param, binding } of ownedParams(operation)) {
    const values = param.in === 'body' ? serializeBodyValue(param, ownProperty(request.body, param.name)) : serializeRequestValue(param, rawValue(param, request));
    // An unsecured operation is not decided on its values, so they are the handler's business alone.
    if (operation.secured && values.includes(null)) throw invalidValue(param);
    input.params![k] = values;
    const claim = readClaim(payload, binding);
    if (claim !== undefined) input.claims![k] = serializeClaimValue(param, claim);
  }
  // A list operation owns nothing itself: the policy plans its items from the claims bound to the item's owned parameters.
  if (operation.list !== undefined) {
    for (const { key: k, param, binding } of ownedParams(operation.list)) {
      const claim = readClaim(payload, binding);
      if (claim !== undefined) input.claims![k] = serializeClaimValue(param, claim);
    }
  }
  return input;
}

function invalidValue(param: ParamSpec): RequestValidationError {
  const where = param.in === 'body' ? 'the body property' : `the ${param.in} parameter`;
  const expected = param.type === 'array' ? `a list of ${param.items ?? 'values'} in ${param.style} style` : param.type === 'unknown' ? 'one value' : `one ${param.type}`;
  return new RequestValidationError('ERR_SVCGATE_PARAM', `${where} ${param.name} must be ${expected}`);
}

/** The own property `name` of a plain object (a JSON body, a parsed argument), else undefined. */
export function ownProperty(source: unknown, name: string): unknown {
  return typeof source === 'object' && source !== null && !Array.isArray(source) && Object.hasOwn(source, name) ? (source as Record<string, unknown>)[name] : undefined;
}

function rawValue(param: ParamSpec, request: RequestParts): string | string[] | undefined {
  switch (param.in) {
    case 'body':
      return undefined;
    case 'path':
      return request.pathParams?.[param.name];
    case 'query': {
      const values = request.query?.getAll(param.name) ?? [];
      return values.length > 0 ? values : undefined;
    }
    case 'header': {
      const value = request.headers?.[param.name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value;
    }
    case 'cookie':
      return request.cookies?.get(param.name);
  }
}

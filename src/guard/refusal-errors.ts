import type { Decision } from '../policy/evaluate/evaluator';
import type { RequestValidationError } from '../policy/request/request-validation-error';
import { challengesOf, describe } from '../token/challenge';
import { stableFailureCode } from '../token/failure-code';
import { ForbiddenError, InsufficientScopeError, InvalidRequestError, PolicyUnavailableError, UnauthorizedError } from './http-errors';
import { FORBIDDEN_MESSAGE, shownReasons, UNAVAILABLE_MESSAGE } from './reason-exposure';
import { insufficientScopeChallenge } from './scope-challenge';

/** The code of a 401 to a request that sent no Authorization header, and what it says. */
export const NO_CREDENTIALS = 'ERR_SVCGATE_NO_CREDENTIALS';
export const NO_BEARER = 'this operation needs a bearer token';
/**
 * 401 for credentials that were refused: the error's code when it is a stable one (else
 * ERR_SVCGATE_INVALID_TOKEN: see stableFailureCode), its description as the challenge carries it
 * (see describe), and its challenges (RFC 6750, RFC 9449).
 */
export function credentialsRefused(error: unknown): UnauthorizedError {
  const code = stableFailureCode((error as { code?: unknown } | null)?.code);
  return new UnauthorizedError({ code, description: describe(error), headers: { 'WWW-Authenticate': challengesOf(error) }, cause: error });
}

/** 401 to a request without bearer credentials, with the bare challenges of the schemes offered (RFC 6750, 3.1). */
export function credentialsMissing(description: string, challenges: string | readonly string[], code: string, decision?: Decision): UnauthorizedError {
  return new UnauthorizedError({ code, description, headers: { 'WWW-Authenticate': challenges }, decision });
}

/** 403 for a policy deny; with the insufficient_scope challenge when the token's scopes caused it. */
export function policyDenied(decision: Decision, exposeReasons: boolean): ForbiddenError {
  const description = shownReasons(decision, exposeReasons, FORBIDDEN_MESSAGE);
  const challenge = insufficientScopeChallenge(decision);
  if (challenge === undefined) return new ForbiddenError({ code: 'ERR_SVCGATE_FORBIDDEN', description, decision });
  return new InsufficientScopeError({ code: 'ERR_SVCGATE_INSUFFICIENT_SCOPE', description, headers: { 'WWW-Authenticate': challenge }, decision });
}

/** 503: nothing could decide; the client may retry after the decision's `Retry-After`. */
export function policyUnavailable(decision: Decision, exposeReasons: boolean): PolicyUnavailableError {
  const description = shownReasons(decision, exposeReasons, UNAVAILABLE_MESSAGE);
  return new PolicyUnavailableError({ code: 'ERR_SVCGATE_POLICY_UNAVAILABLE', description, headers: { 'Retry-After': String(decision.unavailable?.retryAfterSeconds ?? 1) }, decision });
}

/** 400 for a request the guard will not decide on because it can be read more than one way (already as shown: see shownRefusal). */
export function requestRefused(error: RequestValidationError, decision?: Decision): InvalidRequestError {
  return new InvalidRequestError({ code: error.code, description: error.message, decision, cause: error });
}

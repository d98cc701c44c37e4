import type { IncomingMessage, ServerResponse } from 'node:http';
import type { VerifiedPayload } from '../policy/request/build-input';
import type { DecisionSource } from '../policy/evaluate/decision-source';
import type { Decision } from '../policy/evaluate/evaluator';
import type { ListPlan } from '../policy/evaluate/list-plan';
import type { OperationMatch } from '../policy/request/match-operation';
import type { RequestValidationError } from '../policy/request/request-validation-error';
import type { DecisionOptions } from './acl-options';
import { authorize, type AuthorizeResult, type HostReading } from './authorize';
import type { BearerJwtHandler } from '../token/bearer-jwt';
import { describe } from '../token/challenge';
import { isOtherScheme } from '../token/errors';
import { reportRefusedCredentials } from './refused-credentials';
import { answerError } from './error-answers';
import { filterAttributes } from './filter-attributes';
import { withPlanOf } from './list-operations';
import { credentialsMissing, credentialsRefused, NO_BEARER, NO_CREDENTIALS, policyDenied, policyUnavailable, requestRefused } from './refusal-errors';
import { thenOrNow } from '../policy/evaluate/then-or-now';
import { verifyForRequest, type Verification } from '../token/scheme-handler';
import { verificationRequest } from '../token/verification-request';

/** What an allowed request carries on to the route handler. */
export interface RequestAuth {
  /** The verified JWT payload; undefined for anonymous callers, unguarded operations and callers let in by another scheme. */
  payload: VerifiedPayload | undefined;
  decision: Decision;
  /**
   * Strips from `data` every attribute the decision did not grant. For a caller let in by another
   * scheme the ACL granted nothing, so it keeps nothing (`{}` of an object): decide yourself what
   * such a caller sees (look at `schemes`).
   */
  filter: <T>(data: T) => T;
  /**
   * The security schemes that let the request in: the bearer scheme's name when its token was
   * verified; the schemes of the alternative a request met without it (`otherSchemes` of
   * bearerJwtAcl, `['apiKey']`), which the policy was not asked about; empty for callers
   * without credentials and for operations without the bearer scheme.
   */
  schemes: readonly string[];
  /**
   * Present exactly on a list operation (`x-acl-list`): which items the caller may see, decided by
   * the policy with the rest (the same object as `decision.list`). `all` (every row) or `some`
   * (rows whose fields hold one of the values of an `anyOf` entry), never `none`: a caller who may
   * see no item is refused with 403 before the handler runs. Hand it to `toSql`, `toMongo` or
   * `matches` of `svcgate/list`; its values are typed by the item parameter's schema. A caller
   * let in by another scheme gets `none` here, as its `filter` keeps nothing: decide yourself what
   * such a caller sees. Always frozen (a cached plan is shared by every request it is served to).
   */
  list?: ListPlan;
}

export type GuardedRequest = IncomingMessage & { originalUrl?: string; body?: unknown; auth?: RequestAuth };

export interface Guard {
  evaluator: DecisionSource;
  handler: BearerJwtHandler;
  options: DecisionOptions;
  /** `[<bearer scheme name>]`, frozen: `req.auth.schemes` of a request whose token was verified. */
  schemes: readonly string[];
}

/** `req.auth.schemes` of a request that met no scheme: shared, as it never changes. */
export const NO_SCHEMES: readonly string[] = Object.freeze([]);

/** Where a refusal goes with `errors: 'next'`: the host's next(). */
export type PassOn = (error: unknown) => void;

/**
 * Verifies, decides and, on a deny, answers as `guard.options.errors` says (see answerError): 401
 * with an RFC 6750 (and RFC 9449) challenge that says why, logged as a deny, 403, 400 or 503.
 * True when the request may go on, with `req.auth` set; false when it was refused. With `anonymous`, the token is not read:
 * the request met none of the requirements the bearer scheme is part of. Immediate, without a
 * promise, when nothing has to be awaited (a token verified before, an in-process decision, no
 * ownership callback), so that the common request is answered within the turn that read it.
 */
export function guardRequest(guard: Guard, found: OperationMatch, req: GuardedRequest, res: ServerResponse, next: PassOn, anonymous = false, host?: HostReading): boolean | Promise<boolean> {
  // anonymous: the request met no security requirement that the token could complete (see express-security).
  const header = anonymous ? undefined : req.headers.authorization;
  const decideFor = (caller: Caller) => decideAndAnswer(guard, found, req, res, next, caller, host);
  if (!found.operation.secured || header === undefined) return decideFor({ payload: undefined, credentials: header, missing: NO_BEARER, code: NO_CREDENTIALS });
  const failed = (error: unknown): boolean | Promise<boolean> => {
    // RFC 6750, 3.1: credentials of another scheme are no bearer credentials; the request is decided as one without any.
    if (isOtherScheme(error)) return decideFor({ payload: undefined, credentials: undefined, missing: describe(error), code: (error as { code: string }).code });
    const refusal = credentialsRefused(error);
    reportRefusedCredentials(guard.options.decisionLog, guard.evaluator, found.key, refusal);
    answerError(res, refusal, guard.options.errors, next);
    return false;
  };
  let verified: Verification;
  try {
    verified = verifyForRequest(guard.handler, header, () => verificationRequest(req));
  } catch (error) {
    return failed(error);
  }
  return thenOrNow(verified, (payload) => decideFor({ payload, credentials: header, missing: NO_BEARER, code: NO_CREDENTIALS }), failed);
}

/** What the guard knows of the caller: the verified payload, or why there is none. */
interface Caller {
  payload: VerifiedPayload | undefined;
  /** The Authorization header, unless it held no bearer credentials. */
  credentials: string | undefined;
  /** Why a request without bearer credentials has none, when it sent another scheme's. */
  missing: string;
  /** The code of the 401 such a request gets: no credentials, or another scheme's. */
  code: string;
}

function decideAndAnswer(guard: Guard, found: OperationMatch, req: GuardedRequest, res: ServerResponse, next: PassOn, caller: Caller, host: HostReading | undefined): boolean | Promise<boolean> {
  const { errors, exposeReasons } = guard.options;
  const answer = ({ decision, refused }: AuthorizeResult): boolean => {
    if (refused) {
      answerError(res, requestRefused(refused, decision), errors, next);
      return false;
    }
    if (decision.unavailable) {
      answerError(res, policyUnavailable(decision, exposeReasons), errors, next);
      return false;
    }
    if (!decision.allow) {
      // RFC 6750, 3.1: a request without credentials gets the bare challenge, no error code.
      // Another verifier than bearerJwt's may come without the challenges.
      const refusal = caller.credentials === undefined ? credentialsMissing(caller.missing, guard.handler.challenges ?? ['Bearer'], caller.code, decision) : policyDenied(decision, exposeReasons);
      answerError(res, refusal, errors, next);
      return false;
    }
    // Another layer (a timeout) may have answered while the guard waited: nothing goes on then.
    if (res.headersSent) return false;
    const { payload } = caller;
    req.auth = withPlanOf<RequestAuth>({ payload, decision, filter: (value) => filterAttributes(value, decision.attributes), schemes: payload === undefined ? NO_SCHEMES : guard.schemes }, decision);
    return true;
  };
  const pending = authorize(guard.evaluator, found, req, caller.payload, guard.options, host);
  return thenOrNow(pending, answer);
}

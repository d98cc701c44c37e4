import type { IncomingMessage, ServerResponse } from 'node:http';
import type { VerifiedPayload } from '../policy/request/build-input';
import type { DecisionSource } from '../policy/evaluate/decision-source';
import type { Decision } from '../policy/evaluate/evaluator';
import type { OperationMatch } from '../policy/request/match-operation';
import type { RequestValidationError } from '../policy/request/request-validation-error';
import type { DecisionOptions } from './acl-options';
import { authorize, type AuthorizeResult, type HostReading } from './authorize';
import type { BearerJwtHandler } from '../token/bearer-jwt';
import { challengesOf, describe } from '../token/challenge';
import { isOtherScheme } from '../token/errors';
import { logAuthenticationFailure } from './decision-log';
import { filterAttributes } from './filter-attributes';
import { FORBIDDEN_MESSAGE, shownReasons, UNAVAILABLE_MESSAGE } from './reason-exposure';
import { insufficientScopeChallenge } from './scope-challenge';
import { thenOrNow } from '../policy/evaluate/then-or-now';
import { verifyForRequest, type Verification } from '../token/scheme-handler';
import { verificationRequest } from '../token/verification-request';

const NO_BEARER = 'this operation needs a bearer token';

/** What an allowed request carries on to the route handler. */
export interface RequestAuth {
  /** The verified JWT payload; undefined for anonymous callers and unguarded operations. */
  payload: VerifiedPayload | undefined;
  decision: Decision;
  /** Strips from `data` every attribute the decision did not grant. */
  filter: <T>(data: T) => T;
}

export type GuardedRequest = IncomingMessage & { originalUrl?: string; body?: unknown; auth?: RequestAuth };

export interface Guard {
  evaluator: DecisionSource;
  handler: BearerJwtHandler;
  options: DecisionOptions;
}

/**
 * Verifies, decides and, on a deny, answers: 401 with an RFC 6750 (and RFC 9449) challenge that
 * says why, logged as a deny, or 403, as JSON.
 * True when the request may go on, with `req.auth` set. With `anonymous`, the token is not read:
 * the request met none of the requirements the bearer scheme is part of. Immediate, without a
 * promise, when nothing has to be awaited (a token verified before, an in-process decision, no
 * ownership callback), so that the common request is answered within the turn that read it.
 */
export function guardRequest(guard: Guard, found: OperationMatch, req: GuardedRequest, res: ServerResponse, anonymous = false, host?: HostReading): boolean | Promise<boolean> {
  // anonymous: the request met no security requirement that the token could complete (see express-security).
  const header = anonymous ? undefined : req.headers.authorization;
  const decideFor = (caller: Caller) => decideAndAnswer(guard, found, req, res, caller, host);
  if (!found.operation.secured || header === undefined) return decideFor({ payload: undefined, credentials: header, missing: NO_BEARER });
  const failed = (error: unknown): boolean | Promise<boolean> => {
    // RFC 6750, 3.1: credentials of another scheme are no bearer credentials; the request is decided as one without any.
    if (isOtherScheme(error)) return decideFor({ payload: undefined, credentials: undefined, missing: describe(error) });
    const description = describe(error);
    logAuthenticationFailure(guard.options.decisionLog, guard.evaluator, found.key, description);
    answerJson(res, 401, 'Unauthorized', description, challengesOf(error));
    return false;
  };
  let verified: Verification;
  try {
    verified = verifyForRequest(guard.handler, header, () => verificationRequest(req));
  } catch (error) {
    return failed(error);
  }
  return thenOrNow(verified, (payload) => decideFor({ payload, credentials: header, missing: NO_BEARER }), failed);
}

/** What the guard knows of the caller: the verified payload, or why there is none. */
interface Caller {
  payload: VerifiedPayload | undefined;
  /** The Authorization header, unless it held no bearer credentials. */
  credentials: string | undefined;
  /** Why a request without bearer credentials has none, when it sent another scheme's. */
  missing: string;
}

function decideAndAnswer(guard: Guard, found: OperationMatch, req: GuardedRequest, res: ServerResponse, caller: Caller, host: HostReading | undefined): boolean | Promise<boolean> {
  const answer = ({ decision, refused }: AuthorizeResult): boolean => {
    if (refused) {
      answerRefusal(res, refused);
      return false;
    }
    if (decision.unavailable) {
      answerUnavailable(res, decision, guard.options.exposeReasons);
      return false;
    }
    if (!decision.allow) {
      // RFC 6750, 3.1: a request without credentials gets the bare challenge, no error code.
      if (caller.credentials === undefined) {
        // Another verifier than bearerJwt's may come without the challenges.
        answerJson(res, 401, 'Unauthorized', caller.missing, guard.handler.challenges ?? ['Bearer']);
      } else {
        answerJson(res, 403, 'Forbidden', shownReasons(decision, guard.options.exposeReasons, FORBIDDEN_MESSAGE), insufficientScopeChallenge(decision));
      }
      return false;
    }
    // Another layer (a timeout) may have answered while the guard waited: nothing goes on then.
    if (res.headersSent) return false;
    const { payload } = caller;
    req.auth = { payload, decision, filter: (value) => filterAttributes(value, decision.attributes) };
    return true;
  };
  const pending = authorize(guard.evaluator, found, req, caller.payload, guard.options, host);
  return thenOrNow(pending, answer);
}

/** 400 for a request the guard will not decide on because it can be read more than one way. */
export function answerRefusal(res: ServerResponse, error: RequestValidationError): void {
  answerJson(res, error.status, 'BadRequest', error.message);
}

/** 503: nothing could decide (no bundle yet, data too old, OPA unreachable); the client may retry. */
export function answerUnavailable(res: ServerResponse, decision: Decision, exposeReasons: boolean): void {
  if (res.headersSent) return;
  res.setHeader('Retry-After', String(decision.unavailable?.retryAfterSeconds ?? 1));
  answerJson(res, 503, 'ServiceUnavailable', shownReasons(decision, exposeReasons, UNAVAILABLE_MESSAGE));
}

/** Answers with a JSON error (and its WWW-Authenticate challenges); a response already sent is left alone, as answering twice throws. */
export function answerJson(res: ServerResponse, status: number, error: string, message: string, challenge?: string | readonly string[]): void {
  if (res.headersSent) return;
  if (challenge !== undefined) res.setHeader('WWW-Authenticate', challenge);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify({ error, message }));
}

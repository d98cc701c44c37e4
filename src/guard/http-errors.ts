import type { Decision } from '../policy/evaluate/evaluator';

/** Headers an error's answer carries: `WWW-Authenticate` (one challenge or several) and `Retry-After`. */
export type ErrorHeaders = Readonly<Record<string, string | readonly string[]>>;

/** What an error of the guard is made of, besides its status. */
export interface HttpErrorDetails {
  /** Stable: `ERR_SVCGATE_...`, or the token's failure code (`ERR_JWT_EXPIRED`...). */
  code: string;
  /** What the caller may be told: the reasons only where `exposeReasons` lets them out. */
  description: string;
  /** Headers the answer carries (`WWW-Authenticate`, `Allow`...); the error keeps its own copy. Default: none. */
  headers?: ErrorHeaders;
  /** The decision, with every reason, when one was made: for the app's logs, never for the caller. */
  decision?: Decision;
  /** The error the guard met on the way (a JsonWebTokenError, SecurityError, RequestValidationError). */
  cause?: unknown;
}

/**
 * The error's own copy of `headers`: the challenges given are often the verifier's, shared by every
 * request (`handler.challenges`), and an app's error handler that added its own scheme to the
 * error's WWW-Authenticate list would otherwise add it to every later 401 of that verifier.
 */
function ownHeaders(headers: ErrorHeaders | undefined): ErrorHeaders {
  const own: Record<string, string | readonly string[]> = {};
  for (const name in headers) {
    const value = headers[name]!;
    own[name] = typeof value === 'string' ? value : [...value];
  }
  return own;
}

/**
 * The base of every error svcgate's adapters answer with, or pass to `next()` with
 * `errors: 'next'`. `status` and `statusCode` are the same number (Express's default handler reads
 * either, and sends `headers` with it). A refusal is an answer, not a fault: like AuthError, these
 * are not built by Error's constructor (its native call cost more per deny under load than the
 * decision), so no stack is captured; the prototype chain runs through Error.prototype, so
 * `instanceof Error` holds and `stack` is the one line `<name>: <message>`. `message` is the
 * caller-safe `description`; the reasons are in `decision`.
 */
export interface SvcgateHttpError extends Error {
  readonly name: string;
}

export class SvcgateHttpError {
  readonly status: number;
  readonly statusCode: number;
  readonly code: string;
  readonly message: string;
  readonly description: string;
  readonly headers: ErrorHeaders;
  readonly decision: Decision | undefined;
  readonly cause?: unknown;

  constructor(status: number, details: HttpErrorDetails) {
    this.status = status;
    this.statusCode = status;
    this.code = details.code;
    this.message = details.description;
    this.description = details.description;
    this.headers = ownHeaders(details.headers);
    this.decision = details.decision;
    if (details.cause !== undefined) this.cause = details.cause;
  }

  /** What a captured stack would start with, for loggers that print `stack`. */
  get stack(): string {
    return `${this.name}: ${this.message}`;
  }
}
Object.setPrototypeOf(SvcgateHttpError.prototype, Error.prototype);
Object.defineProperty(SvcgateHttpError.prototype, Symbol.toStringTag, { value: 'Error' });
named(SvcgateHttpError, 'SvcgateHttpError');

/** 400: the request can be read more than one way, so nothing decides on it (`code` is the RequestValidationError's). */
export class InvalidRequestError extends SvcgateHttpError {
  constructor(details: HttpErrorDetails) {
    super(400, details);
  }
}
named(InvalidRequestError, 'InvalidRequestError');

/** 401: no credentials, credentials of another scheme, or a token that does not verify; `headers` holds the challenge. */
export class UnauthorizedError extends SvcgateHttpError {
  constructor(details: HttpErrorDetails) {
    super(401, details);
  }
}
named(UnauthorizedError, 'UnauthorizedError');

/** 403: the policy denied the request. */
export class ForbiddenError extends SvcgateHttpError {
  constructor(details: HttpErrorDetails) {
    super(403, details);
  }
}
named(ForbiddenError, 'ForbiddenError');

/** 403 because the token lacks scopes the operation needs: a ForbiddenError with the RFC 6750 insufficient_scope challenge. */
export class InsufficientScopeError extends ForbiddenError {}
named(InsufficientScopeError, 'InsufficientScopeError');

/** 404: no operation of the document matches the request (bearerJwtAcl with `unknownOperations: 'deny'`). */
export class NotFoundError extends SvcgateHttpError {
  constructor(details: HttpErrorDetails) {
    super(404, details);
  }
}
named(NotFoundError, 'NotFoundError');

/** The code every MethodNotAllowedError has. */
export const METHOD_NOT_ALLOWED = 'ERR_SVCGATE_METHOD_NOT_ALLOWED';

/**
 * 405: the path is one of the document's, the method is not (bearerJwtAcl with
 * `unknownOperations: 'deny'`): `headers.Allow` lists the methods the document declares for it,
 * with HEAD wherever GET is. `code` is `ERR_SVCGATE_METHOD_NOT_ALLOWED`.
 */
export class MethodNotAllowedError extends SvcgateHttpError {
  /** The methods the path answers, upper case, in the order `Allow` lists them. */
  readonly allowed: readonly string[];

  constructor(details: Omit<HttpErrorDetails, 'code' | 'headers'> & { allowed: readonly string[] }) {
    super(405, { ...details, code: METHOD_NOT_ALLOWED, headers: { Allow: details.allowed.join(', ') } });
    this.allowed = details.allowed;
  }
}
named(MethodNotAllowedError, 'MethodNotAllowedError');

/** 503: nothing could decide (no bundle yet, data too old, OPA unreachable); `headers` holds `Retry-After`. */
export class PolicyUnavailableError extends SvcgateHttpError {
  constructor(details: HttpErrorDetails) {
    super(503, details);
  }
}
named(PolicyUnavailableError, 'PolicyUnavailableError');

/** The name on the prototype: one property fewer to write per refusal, and the same for every instance. */
function named(type: { prototype: object }, name: string): void {
  Object.defineProperty(type.prototype, 'name', { value: name, writable: true, configurable: true });
}

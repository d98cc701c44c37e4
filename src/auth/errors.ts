import type { Decision } from '../policy/evaluate/evaluator';
import { exposesReasons, FORBIDDEN_MESSAGE, shownReasons } from './reason-exposure';
import { tokenErrorDescription } from './token-error-description';

/**
 * The Authorization header is not `Bearer <token>`. The host answers 401; @oas-tools/core does so
 * by the error's name. `code` is ERR_SVCGATE_OTHER_SCHEME when the header holds credentials of
 * another scheme (`Basic ...`): the 401 then carries the bare challenge, as for no credentials.
 */
export class SecurityError extends Error {
  override readonly name = 'SecurityError';

  constructor(
    message: string,
    /** What the caller is told (401 error_description and message): short, with no text taken from the request. */
    readonly description: string = 'the Authorization header is not Bearer <token>',
    readonly code: 'ERR_SVCGATE_BEARER_FORMAT' | 'ERR_SVCGATE_OTHER_SCHEME' = 'ERR_SVCGATE_BEARER_FORMAT',
  ) {
    super(message);
  }
}

/** Whether `error` says the request sent credentials of another scheme than the ones offered. */
export function isOtherScheme(error: unknown): boolean {
  return error instanceof SecurityError && error.code === 'ERR_SVCGATE_OTHER_SCHEME';
}

/**
 * The token failed verification, for whatever reason (signature, algorithm, expiry, issuer,
 * malformed JWT...). One class so that one handler covers them all; `code` tells them apart.
 */
export class JsonWebTokenError extends Error {
  override readonly name = 'JsonWebTokenError';

  constructor(
    /** jose's stable code when it gave one (`ERR_JWT_EXPIRED`, `ERR_JWS_SIGNATURE_VERIFICATION_FAILED`...), else `ERR_JWT_INVALID`. */
    readonly code: string,
    /** What was wrong, for logs only: jose's message, which may quote the token's values. */
    readonly reason: string,
    /**
     * What the caller is told (401 error_description and message): one of a fixed set of
     * sentences (see token-error-description.ts), never text taken from the token.
     */
    readonly description: string = tokenErrorDescription({ code }),
  ) {
    super(`invalid token: ${reason}`);
  }
}

/**
 * The policy denied the request. The host answers 403. A deny is an answer, not a fault, so it is
 * not built by Error's constructor, whose native call cost more per deny under load than the
 * decision, even with no stack captured. It is an ordinary object whose prototype chain runs
 * through Error.prototype: `instanceof Error` holds, `Object.prototype.toString` says Error, and
 * its `stack` is the one line `AuthError: <message>`, with no frames.
 */
export interface AuthError extends Error {
  readonly name: 'AuthError';
}

export class AuthError {
  readonly code = 'ERR_SVCGATE_FORBIDDEN';
  readonly name = 'AuthError';
  readonly message: string;

  constructor(
    readonly decision: Decision,
    /**
     * false: the message is a generic one, not the reasons (the host sends the message; `decision`
     * keeps them). The adapters pass what they settled at creation; left out, it is the same rule
     * read now: the reasons unless NODE_ENV is production.
     */
    exposeReasons: boolean = exposesReasons(undefined),
  ) {
    this.message = shownReasons(decision, exposeReasons, FORBIDDEN_MESSAGE) || 'forbidden';
  }

  /** What a captured stack would start with, for loggers that print `stack` (the host's `printStackTrace`). */
  get stack(): string {
    return `${this.name}: ${this.message}`;
  }
}
Object.setPrototypeOf(AuthError.prototype, Error.prototype);
Object.defineProperty(AuthError.prototype, Symbol.toStringTag, { value: 'Error' });

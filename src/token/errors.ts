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

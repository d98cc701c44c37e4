import { describe } from '../../token/challenge';

/**
 * A ready `middleware.error.customHandler` for @oas-tools/core: every token verification failure
 * (a JsonWebTokenError, whatever its code) is a 401. @oas-tools/core calls it only for errors it
 * does not map itself; anything else is left to its 500. The message is the error's description
 * (why the token was refused, with nothing of the token). The WWW-Authenticate challenge is
 * added by BearerJWT, which sees the response; this handler does not.
 */
export function jwtErrorHandler(error: unknown, send: (status: number, body?: unknown) => void): void {
  if ((error as { name?: unknown } | null)?.name === 'JsonWebTokenError') {
    send(401, { error: 'JsonWebTokenError', message: describe(error) });
  }
}

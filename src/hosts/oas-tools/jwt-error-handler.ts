import { jsonBody } from '../../guard/error-answers';
import { SvcgateHttpError } from '../../guard/http-errors';
import { credentialsRefused } from '../../guard/refusal-errors';

/**
 * A ready `middleware.error.customHandler` for @oas-tools/core. @oas-tools/core calls it only for
 * errors it does not map itself; anything else is left to its 500. Its answers have the JSON body
 * every adapter answers with (`{ error, message, code }`):
 * - every token verification failure (a JsonWebTokenError, whatever its code) is a 401 whose
 *   message is the error's description (why the token was refused, with nothing of the token);
 *   its WWW-Authenticate challenge is added by BearerJWT, which sees the response;
 * - a SvcgateHttpError (BearerJWT with `errors: 'next'` while the host's error handler is on) is
 *   answered with its status; its headers are on the response already.
 */
export function jwtErrorHandler(error: unknown, send: (status: number, body?: unknown) => void): void {
  if (error instanceof SvcgateHttpError) return send(error.status, jsonBody(error));
  if ((error as { name?: unknown } | null)?.name === 'JsonWebTokenError') send(401, jsonBody(credentialsRefused(error)));
}

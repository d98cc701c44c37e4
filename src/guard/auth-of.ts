import type { RequestAuth } from './guard-request';

/**
 * authOf found no `auth` on the request: no svcgate guard allowed it (the route is registered
 * before the guard, outside the paths it guards, or the guard is missing). Thrown rather than
 * answered, so that the route fails (500 by default) instead of sending data nothing decided on.
 */
export class NotGuardedError extends Error {
  readonly code = 'ERR_SVCGATE_NOT_GUARDED';
  override readonly name = 'NotGuardedError';
}

/**
 * The `auth` the guard set on a request it allowed (`{ payload, decision, filter }`), typed
 * without `undefined`: in strict TypeScript `req.auth` is optional, as a route may run without a
 * guard, and `authOf(req).filter(user)` needs no `!`. Takes an Express request (bearerJwtAcl,
 * svcAcl) or a service method's context (`authOf(context)` in SvcApi). Throws NotGuardedError
 * when the request carries none, or an `auth` some other middleware set (express-jwt and
 * express-oauth2-jwt-bearer use the same property), which has no decision and no filter. It takes
 * an `auth` of any type, since it checks at run time: where express-oauth2-jwt-bearer's
 * declaration of `req.auth` won over svcgate's, `authOf(req)` compiles all the same, with no cast.
 */
export function authOf(request: { readonly auth?: unknown }): RequestAuth {
  const auth: unknown = request.auth;
  if (isRequestAuth(auth)) return auth;
  const problem = auth === undefined ? 'the request has no auth: no svcgate guard allowed it' : "the request's auth is not svcgate's (it has no decision and filter): another middleware set it";
  throw new NotGuardedError(`authOf: ${problem}; register bearerJwtAcl (app.use, before the route) or svcAcl (interceptAll) so that it decides first`);
}

function isRequestAuth(value: unknown): value is RequestAuth {
  if (typeof value !== 'object' || value === null) return false;
  const { decision, filter } = value as Partial<Record<keyof RequestAuth, unknown>>;
  return typeof filter === 'function' && typeof decision === 'object' && decision !== null;
}

import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** What the bearerJwt handler needs of a request to check a DPoP proof. */
export interface VerificationRequest {
  method: string;
  /**
   * The URL the client used, absolute (`https://api.example.com/users/3?page=2`); the request
   * target alone (`/users/3?page=2`) when its origin is not known.
   */
  url: string;
  headers: IncomingHttpHeaders;
}

/** host or [IPv6], an optional port: nothing that could carry a path, a user or a second host into the URL. */
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/**
 * The request as the handler reads it: the origin from the Host header and the connection's own
 * protocol (TLS or not). X-Forwarded-* headers are not read, since a client can send them when no
 * proxy strips them; behind a proxy, dpop.origins names the public origins instead.
 */
export function verificationRequest(req: IncomingMessage & { originalUrl?: string }): VerificationRequest {
  const target = req.originalUrl ?? req.url ?? '/';
  const host = req.headers.host;
  const protocol = (req.socket as { encrypted?: boolean } | null | undefined)?.encrypted === true ? 'https' : 'http';
  const known = typeof host === 'string' && HOST.test(host) && target.startsWith('/');
  return { method: req.method ?? 'GET', url: known ? `${protocol}://${host}${target}` : target, headers: req.headers };
}

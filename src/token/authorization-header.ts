import type { SchemeOffer } from './challenge';
import { SecurityError } from './errors';

/** The credentials of an Authorization header: its scheme and token. */
export interface Credentials {
  scheme: 'Bearer' | 'DPoP';
  token: string;
}

/** RFC 6750 and RFC 9449: the scheme, case-insensitive, one or more spaces, and one b64token. */
const CREDENTIALS = /^(bearer|dpop) +([A-Za-z0-9\-._~+/]+=*)$/i;
/** RFC 9110, 11.4: an auth-scheme is a token, followed by a space or nothing. */
const SCHEME = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?: |$)/;

/** Reads `Bearer <token>` and `DPoP <token>`, as far as `offer` accepts them; anything else is a SecurityError. */
export function readCredentials(authorization: unknown, maxHeaderBytes: number, offer: SchemeOffer): Credentials {
  if (typeof authorization !== 'string') throw new SecurityError('no Authorization header', 'the request has no Authorization header');
  // Checked before any parsing, so an oversized header costs nothing more than this comparison.
  if (authorization.length > maxHeaderBytes) {
    const description = `the Authorization header is longer than ${maxHeaderBytes} bytes`;
    throw new SecurityError(description, description);
  }
  const match = CREDENTIALS.exec(authorization);
  const scheme = match?.[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
  // Refused before the token is verified: no signature check for a scheme that cannot pass.
  if (match !== null && scheme === 'Bearer' && !offer.bearer) {
    throw new SecurityError('a Bearer token where only DPoP is accepted', 'this API accepts only DPoP-bound tokens, sent with the DPoP scheme');
  }
  if (match === null || (scheme === 'DPoP' && offer.dpopAlgorithms === undefined)) {
    const forms = [offer.bearer ? 'Bearer <token>' : undefined, offer.dpopAlgorithms === undefined ? undefined : 'DPoP <token>'].filter(Boolean).join(' or ');
    const sent = SCHEME.exec(authorization)?.[1]!.toLowerCase();
    if (sent !== undefined && sent !== 'bearer' && (sent !== 'dpop' || offer.dpopAlgorithms === undefined)) {
      throw new SecurityError('credentials of another scheme', `the Authorization header holds credentials of another scheme, not ${forms}`, 'ERR_SVCGATE_OTHER_SCHEME');
    }
    const description = `the Authorization header is not ${forms}`;
    throw new SecurityError(description, description);
  }
  return { scheme, token: match[2]! };
}

import type { ClaimCheckOptions } from './jws/claim-checks';

/** RFC 9068, section 2.2: the claims every JWT access token carries. */
export const RFC9068_REQUIRED_CLAIMS: readonly string[] = ['iss', 'exp', 'aud', 'sub', 'client_id', 'iat', 'jti'];

/**
 * The claim checks of a token profile. RFC 9068 (section 4) has the resource server refuse a token
 * whose header typ is not at+jwt (application/at+jwt is accepted too, as jose does), so an ID token or any
 * other JWT the same issuer signs cannot be used as an access token.
 */
export function profileChecks(profile: 'rfc9068' | undefined, requiredClaims: readonly string[] | undefined): Pick<ClaimCheckOptions, 'typ' | 'requiredClaims'> {
  if (profile === undefined) return requiredClaims === undefined ? {} : { requiredClaims: [...requiredClaims] };
  return { typ: 'at+jwt', requiredClaims: [...new Set([...RFC9068_REQUIRED_CLAIMS, ...(requiredClaims ?? [])])] };
}

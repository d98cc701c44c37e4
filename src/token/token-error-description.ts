/**
 * What a caller is told about a refused token: one of a fixed set of sentences, chosen from jose's
 * stable code and, for a claim check, the claim's name. Never jose's message, which quotes the
 * token's own values; every sentence keeps to the characters an RFC 6750 quoted error_description
 * allows (0x20-0x21, 0x23-0x5B, 0x5D-0x7E).
 */

/** The failure as jose reports it: its code, and for claim checks the claim and jose's reason. */
export interface TokenFailure {
  code: string;
  claim?: unknown;
  /** jose's JWTClaimValidationFailed.reason: 'missing', 'check_failed', 'invalid'. */
  claimReason?: unknown;
  /** exp is required by svcgate's default rather than by the configuration, so its absence also tells how to opt out. */
  expRequiredByDefault?: boolean;
}

const INVALID_TOKEN_DESCRIPTION = 'the token is invalid';

/** By jose's code, the key-set module's ERR_JWKS_UNAVAILABLE and the verifier deadline's ERR_SVCGATE_VERIFY_TIMEOUT; any other code gets INVALID_TOKEN_DESCRIPTION. */
const BY_CODE: Readonly<Record<string, string>> = {
  ERR_JWT_EXPIRED: 'the token has expired',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'the signature does not verify',
  ERR_JOSE_ALG_NOT_ALLOWED: "the token's algorithm is not accepted",
  ERR_JOSE_NOT_SUPPORTED: 'the token uses an algorithm or header this server does not support',
  ERR_JWKS_NO_MATCHING_KEY: 'no key of the key set matches the token',
  ERR_JWKS_UNAVAILABLE: 'the key set cannot be fetched',
  ERR_JWKS_INVALID: 'the key set cannot be used',
  ERR_JWK_INVALID: 'the key set cannot be used',
  ERR_JWS_INVALID: 'the token is not a well-formed JWT',
  ERR_JWT_INVALID: 'the token is not a well-formed JWT',
  ERR_JWT_CLAIM_VALIDATION_FAILED: "the token's claims are not accepted",
  ERR_SVCGATE_VERIFY_TIMEOUT: 'the token could not be verified in time',
};

/** A claim that fails its check (jose's reason 'check_failed'); exp fails as ERR_JWT_EXPIRED. */
const CHECK_FAILED: Readonly<Record<string, string>> = {
  iss: "the token's issuer is not accepted",
  aud: "the token's audience is not accepted",
  nbf: 'the token is not valid yet',
  iat: "the token's issue time is in the future",
};

/** jose reports the header's typ as a claim; svcgate checks it only for profile 'rfc9068'. */
const TYP_DESCRIPTION = 'the token is not a JWT access token (typ at+jwt)';

/**
 * A token without exp was accepted before exp became required by default; whoever meets this
 * after an upgrade is told the option that accepts such tokens again.
 */
const NO_EXP_BY_DEFAULT = 'the token has no exp claim, which is required by default (to accept tokens without exp, configure requiredClaims without exp)';

/** Registered claim names, the only ones a description names (a configured requiredClaims entry could hold anything). */
const NAMED_CLAIMS = new Set(['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti', 'client_id', 'scope', 'cnf', 'auth_time', 'acr', 'amr', 'azp', 'nonce']);

export function tokenErrorDescription(failure: TokenFailure): string {
  const { code, claim, claimReason, expRequiredByDefault } = failure;
  const named = typeof claim === 'string' && NAMED_CLAIMS.has(claim) ? claim : undefined;
  if (code === 'ERR_JWT_EXPIRED' && named === 'iat') return 'the token is older than the accepted age (maxTokenAge)';
  if (code !== 'ERR_JWT_CLAIM_VALIDATION_FAILED') return BY_CODE[code] ?? INVALID_TOKEN_DESCRIPTION;
  if (claim === 'typ') return TYP_DESCRIPTION;
  if (claimReason === 'missing' && named === 'exp' && expRequiredByDefault === true) return NO_EXP_BY_DEFAULT;
  if (claimReason === 'missing') return named === undefined ? 'the token lacks a required claim' : `the token has no ${named} claim`;
  if (claimReason === 'check_failed' && named !== undefined && CHECK_FAILED[named] !== undefined) return CHECK_FAILED[named];
  if (named !== undefined) return `the token's ${named} claim is invalid`;
  return BY_CODE.ERR_JWT_CLAIM_VALIDATION_FAILED!;
}

/**
 * Why a token failed, with jose's stable codes, so that bearerJwt's answers (and the 401's
 * error_description, chosen by code and claim in token-error-description.ts) are the same as
 * when jose verified tokens. `claim` and `reason` are set for claim checks as in jose's
 * JWTClaimValidationFailed (reason: 'missing', 'invalid' or 'check_failed').
 */
export class JwtCheckFailure extends Error {
  override readonly name = 'JwtCheckFailure';

  constructor(
    readonly code: JwtFailureCode,
    message: string,
    readonly claim?: string,
    readonly reason?: 'missing' | 'invalid' | 'check_failed',
  ) {
    super(message);
  }
}

export type JwtFailureCode =
  | 'ERR_JWS_INVALID'
  | 'ERR_JWT_INVALID'
  | 'ERR_JOSE_ALG_NOT_ALLOWED'
  | 'ERR_JOSE_NOT_SUPPORTED'
  | 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED'
  | 'ERR_JWT_CLAIM_VALIDATION_FAILED'
  | 'ERR_JWT_EXPIRED'
  | 'ERR_JWKS_NO_MATCHING_KEY'
  | 'ERR_JWKS_MULTIPLE_MATCHING_KEYS'
  | 'ERR_JWKS_INVALID';

/** A key that cannot verify the token's algorithm (jose throws a TypeError, which bearerJwt reports as ERR_JWT_INVALID). */
export function keyMisfit(message: string): JwtCheckFailure {
  return new JwtCheckFailure('ERR_JWT_INVALID', `invalid key for this operation: ${message}`);
}

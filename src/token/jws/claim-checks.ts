import { JwtCheckFailure } from './jwt-check-failure';
import type { JwsHeader } from './read-compact';

/** The claim checks of one issuer, read once from its configuration (jose's JWTVerifyOptions, durations in seconds). */
export interface ClaimCheckOptions {
  issuer: string | readonly string[];
  audience?: string | readonly string[] | undefined;
  requiredClaims?: readonly string[] | undefined;
  typ?: string | undefined;
  clockToleranceSeconds: number;
  /**
   * undefined: no bound on the token's age. As in jose, a maxTokenAge of 0 (the number) only
   * requires iat (`checked: false`), while '0s' bounds the age to the clock tolerance.
   */
  maxTokenAge?: { seconds: number; checked: boolean } | undefined;
}

export type ClaimsCheck = (header: JwsHeader, payload: unknown) => Record<string, unknown>;

const normalizeTyp = (value: string): string => value.toLowerCase().replace(/^application\//, '');

/**
 * The checks jose's jwtVerify makes of the claims set, in its order and with its codes, so that
 * a token gets the same answer and the same 401 description as before: the payload is a JSON
 * object; typ; the required claims present (`in`, as jose asks); iss, aud; iat, nbf and exp with
 * the clock tolerance; the token's age.
 */
export function claimsCheck(options: ClaimCheckOptions): ClaimsCheck {
  const issuers = [options.issuer].flat();
  const audiences = options.audience === undefined ? undefined : [options.audience].flat();
  const expectedTyp = options.typ === undefined ? undefined : normalizeTyp(options.typ);
  const tolerance = options.clockToleranceSeconds;
  const maxAge = options.maxTokenAge?.checked === true ? options.maxTokenAge.seconds : undefined;
  // jose's order: the fixed claims it checks first, then requiredClaims from the last; each named once.
  const present = [...new Set([...(options.requiredClaims ?? []), ...(options.maxTokenAge === undefined ? [] : ['iat']), ...(audiences === undefined ? [] : ['aud']), 'iss'].reverse())];

  return (header, payload) => {
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw new JwtCheckFailure('ERR_JWT_INVALID', 'JWT Claims Set must be a top-level JSON object');
    const claims = payload as Record<string, unknown>;
    if (expectedTyp !== undefined && (typeof header.typ !== 'string' || normalizeTyp(header.typ) !== expectedTyp)) throw failed('unexpected "typ" JWT header value', 'typ', 'check_failed');
    for (const claim of present) if (!(claim in claims)) throw failed(`missing required "${claim}" claim`, claim, 'missing');
    if (!issuers.includes(claims.iss as string)) throw failed('unexpected "iss" claim value', 'iss', 'check_failed');
    if (audiences !== undefined && !hasAudience(claims.aud, audiences)) throw failed('unexpected "aud" claim value', 'aud', 'check_failed');
    const now = Math.floor(Date.now() / 1000);
    const { iat, nbf, exp } = claims;
    if ((iat !== undefined || maxAge !== undefined) && typeof iat !== 'number') throw failed('"iat" claim must be a number', 'iat', 'invalid');
    if (nbf !== undefined) {
      if (typeof nbf !== 'number') throw failed('"nbf" claim must be a number', 'nbf', 'invalid');
      if (nbf > now + tolerance) throw failed('"nbf" claim timestamp check failed', 'nbf', 'check_failed');
    }
    if (exp !== undefined) {
      if (typeof exp !== 'number') throw failed('"exp" claim must be a number', 'exp', 'invalid');
      if (exp <= now - tolerance) throw new JwtCheckFailure('ERR_JWT_EXPIRED', '"exp" claim timestamp check failed', 'exp', 'check_failed');
    }
    if (maxAge !== undefined) {
      const age = now - (iat as number);
      if (age - tolerance > maxAge) throw new JwtCheckFailure('ERR_JWT_EXPIRED', '"iat" claim timestamp check failed (too far in the past)', 'iat', 'check_failed');
      if (age < 0 - tolerance) throw failed('"iat" claim timestamp check failed (it should be in the past)', 'iat', 'check_failed');
    }
    return claims;
  };
}

function hasAudience(aud: unknown, accepted: readonly string[]): boolean {
  if (typeof aud === 'string') return accepted.includes(aud);
  return Array.isArray(aud) && accepted.some((value) => aud.includes(value));
}

function failed(message: string, claim: string, reason: 'missing' | 'invalid' | 'check_failed'): JwtCheckFailure {
  return new JwtCheckFailure('ERR_JWT_CLAIM_VALIDATION_FAILED', message, claim, reason);
}

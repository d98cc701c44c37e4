import { DPOP_PROOF_ERROR } from './dpop/dpop-proof';
import { isOtherScheme } from './errors';

/** The schemes a bearerJwt handler accepts, as its 401s offer them (RFC 6750, 3; RFC 9449, 7.1). */
export interface SchemeOffer {
  /** false when only DPoP is accepted (`dpop.required`). */
  bearer: boolean;
  /** The proof algorithms, when DPoP is enabled. */
  dpopAlgorithms: readonly string[] | undefined;
}

/** The description of a failure whose error gives none (another handler, a host's own error). */
const DEFAULT_DESCRIPTION = 'the bearer token is invalid';

/** The WWW-Authenticate values a handler's errors carry, from the handler to the adapter's 401. */
const challengesByError = new WeakMap<object, readonly string[]>();

/** The challenges of a 401 to a request that sent no credentials: every scheme offered, without an error. */
export function bareChallenges(offer: SchemeOffer): string[] {
  const challenges = offer.bearer ? ['Bearer'] : [];
  if (offer.dpopAlgorithms !== undefined) challenges.push(`DPoP algs="${offer.dpopAlgorithms.join(' ')}"`);
  return challenges;
}

/**
 * The challenges of a 401 for `error`: the error code and description go on the scheme the
 * credentials were sent with (`used`; DPoP when Bearer is not offered), the other schemes offered
 * come bare. A refused proof is `invalid_dpop_proof`, anything else `invalid_token`.
 */
export function failureChallenges(offer: SchemeOffer, used: 'Bearer' | 'DPoP', error: unknown): string[] {
  // RFC 6750, 3.1: a client that tried another authentication method gets no error code.
  if (isOtherScheme(error)) return bareChallenges(offer);
  const carrier = used === 'Bearer' && offer.bearer ? 'Bearer' : 'DPoP';
  const code = (error as { code?: unknown } | null)?.code === DPOP_PROOF_ERROR ? 'invalid_dpop_proof' : 'invalid_token';
  const params = `error="${code}", error_description="${describe(error)}"`;
  const algs = `algs="${(offer.dpopAlgorithms ?? []).join(' ')}"`;
  const challenges: string[] = [];
  if (carrier === 'Bearer') challenges.push(`Bearer ${params}`);
  else if (offer.bearer) challenges.push('Bearer');
  if (carrier === 'DPoP') challenges.push(`DPoP ${params}, ${algs}`);
  else if (offer.dpopAlgorithms !== undefined) challenges.push(`DPoP ${algs}`);
  return challenges;
}

export function attachChallenges<E>(error: E, challenges: readonly string[]): E {
  if (typeof error === 'object' && error !== null) challengesByError.set(error, challenges);
  return error;
}

/** The challenges a bearerJwt handler attached to its error, if it did. */
export function attachedChallenges(error: unknown): readonly string[] | undefined {
  return typeof error === 'object' && error !== null ? challengesByError.get(error) : undefined;
}

/** The attached challenges, else an RFC 6750 invalid_token challenge with the error's description. */
export function challengesOf(error: unknown): readonly string[] {
  return attachedChallenges(error) ?? [`Bearer error="invalid_token", error_description="${describe(error)}"`];
}

/**
 * The error's `description`, kept to the characters an RFC 6750 quoted string allows
 * (0x20-0x21, 0x23-0x5B, 0x5D-0x7E) and to 200 of them, so no error can break the header.
 */
export function describe(error: unknown): string {
  const description = (error as { description?: unknown } | null)?.description;
  const safe = typeof description === 'string' ? description.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '').slice(0, 200) : '';
  return safe === '' ? DEFAULT_DESCRIPTION : safe;
}

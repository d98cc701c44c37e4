import type { KeyObject } from 'node:crypto';

/** The JWS algorithms jose 5.10 verifies, by the key that can verify them. */
export const HMAC_ALGORITHMS: readonly string[] = ['HS256', 'HS384', 'HS512'];
export const RSA_ALGORITHMS: readonly string[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
const RSA_PSS_ALGORITHMS: readonly string[] = ['PS256', 'PS384', 'PS512'];

/**
 * By the curve's JWK name (RFC 7518, RFC 8037, RFC 8812). `Ed25519` is RFC 9864's fully specified
 * name; EdDSA stays for Ed25519 and Ed448 keys, as providers still sign with it.
 */
export const CURVE_ALGORITHMS: Readonly<Record<string, readonly string[]>> = {
  'P-256': ['ES256'],
  'P-384': ['ES384'],
  'P-521': ['ES512'],
  secp256k1: ['ES256K'],
  Ed25519: ['EdDSA', 'Ed25519'],
  Ed448: ['EdDSA'],
};

export const ASYMMETRIC_ALGORITHMS: readonly string[] = [...RSA_ALGORITHMS, ...new Set(Object.values(CURVE_ALGORITHMS).flat())];
export const KNOWN_ALGORITHMS: readonly string[] = [...HMAC_ALGORITHMS, ...ASYMMETRIC_ALGORITHMS];

/** Node's names for the curves (asymmetricKeyDetails.namedCurve), as JWK names. */
const NODE_CURVES: Readonly<Record<string, string>> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521', secp256k1: 'secp256k1' };

/**
 * The curve of an EC or OKP public key, by its JWK name; undefined for other keys. The type alone
 * does not say which ES* fits: a P-256 key verifies ES256 and nothing else.
 */
export function curveOf(key: KeyObject): string | undefined {
  switch (key.asymmetricKeyType) {
    case 'ec':
      return NODE_CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''];
    case 'ed25519':
      return 'Ed25519';
    case 'ed448':
      return 'Ed448';
    default:
      return undefined;
  }
}

/** What a public key verifies, by its type and curve; none for a key jose cannot use (X25519, an unknown curve). */
export function algorithmsForKey(key: KeyObject): readonly string[] {
  if (key.asymmetricKeyType === 'rsa') return RSA_ALGORITHMS;
  if (key.asymmetricKeyType === 'rsa-pss') return RSA_PSS_ALGORITHMS;
  return CURVE_ALGORITHMS[curveOf(key) ?? ''] ?? [];
}

/** The key as errors name it: "a public key of type ec, curve P-256". */
export function describeKey(key: KeyObject): string {
  const type = key.asymmetricKeyType ?? 'unknown';
  const curve = type === 'ec' ? curveOf(key) ?? key.asymmetricKeyDetails?.namedCurve : undefined;
  return `a public key of type ${type}${curve === undefined ? '' : `, curve ${curve}`}`;
}

/** By Node's key type alone, for hints where the key is not imported: every curve of that type. */
export function algorithmsForKeyType(type: string | undefined): readonly string[] {
  switch (type) {
    case 'rsa':
      return RSA_ALGORITHMS;
    case 'rsa-pss':
      return RSA_PSS_ALGORITHMS;
    case 'ec':
      return [...CURVE_ALGORITHMS['P-256']!, ...CURVE_ALGORITHMS['P-384']!, ...CURVE_ALGORITHMS['P-521']!, ...CURVE_ALGORITHMS.secp256k1!];
    case 'ed25519':
      return CURVE_ALGORITHMS.Ed25519!;
    case 'ed448':
      return CURVE_ALGORITHMS.Ed448!;
    default:
      return [];
  }
}

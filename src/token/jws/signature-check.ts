import { constants, createHmac, timingSafeEqual, verify, type KeyObject, type VerifyKeyObjectInput } from 'node:crypto';
import { JwtCheckFailure, keyMisfit } from './jwt-check-failure';

/** Checks one signature over a token's signing input (`header.payload`, as sent). */
export type SignatureCheck = (signingInput: string, signature: Buffer) => boolean;

const DIGESTS: Readonly<Record<string, string | undefined>> = {
  HS256: 'sha256',
  HS384: 'sha384',
  HS512: 'sha512',
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  PS256: 'sha256',
  PS384: 'sha384',
  PS512: 'sha512',
  ES256: 'sha256',
  ES256K: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
};

const EC_CURVES: Readonly<Record<string, string>> = { ES256: 'P-256', ES256K: 'secp256k1', ES384: 'P-384', ES512: 'P-521' };
const NODE_CURVES: Readonly<Record<string, string>> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521', secp256k1: 'secp256k1' };

const checks = new WeakMap<KeyObject, Map<string, SignatureCheck>>();

/**
 * The check of `alg` signatures with `key`, made once per key and algorithm: which key fits which
 * algorithm (type, curve, RSA size, RSA-PSS parameters) is decided here, as jose decides it on
 * every call, and the options node:crypto needs are built here. A key that does not fit throws,
 * as jose does, before any signature is looked at.
 */
export function signatureCheck(key: KeyObject, alg: string): SignatureCheck {
  let byAlg = checks.get(key);
  if (byAlg === undefined) {
    byAlg = new Map();
    checks.set(key, byAlg);
  }
  let check = byAlg.get(alg);
  if (check === undefined) {
    check = makeCheck(key, alg);
    byAlg.set(alg, check);
  }
  return check;
}

function makeCheck(key: KeyObject, alg: string): SignatureCheck {
  if (alg.startsWith('HS')) {
    if (key.type !== 'secret') throw keyMisfit(`KeyObject instances for symmetric algorithms must be of type "secret"`);
    const digest = DIGESTS[alg];
    if (digest === undefined) throw unsupported(alg);
    const length = Number.parseInt(digest.slice(3), 10) >> 3;
    // timingSafeEqual throws on a length mismatch, which is a wrong signature like any other.
    return (signingInput, signature) => signature.length === length && timingSafeEqual(createHmac(digest, key).update(signingInput).digest(), signature);
  }
  if (key.type === 'secret') throw keyMisfit('KeyObject instances for asymmetric algorithms must not be of type "secret"');
  const input = verifyInput(key, alg);
  const digest = DIGESTS[alg];
  return (signingInput, signature) => {
    try {
      return verify(digest, Buffer.from(signingInput), input, signature);
    } catch {
      // A signature of the wrong shape for the key (an ECDSA one of the wrong length) is a wrong signature.
      return false;
    }
  };
}

/** What node:crypto's verify takes for the algorithm, after jose's checks of the key. */
function verifyInput(key: KeyObject, alg: string): KeyObject | VerifyKeyObjectInput {
  const type = key.asymmetricKeyType;
  switch (alg) {
    case 'Ed25519':
      if (type !== 'ed25519') throw keyMisfit('its asymmetricKeyType must be ed25519');
      return key;
    case 'EdDSA':
      if (type !== 'ed25519' && type !== 'ed448') throw keyMisfit('its asymmetricKeyType must be ed25519 or ed448');
      return key;
    case 'RS256':
    case 'RS384':
    case 'RS512':
      if (type !== 'rsa') throw keyMisfit('its asymmetricKeyType must be rsa');
      checkModulus(key, alg);
      return key;
    case 'PS256':
    case 'PS384':
    case 'PS512':
      if (type === 'rsa-pss') checkPssParameters(key, alg);
      else if (type !== 'rsa') throw keyMisfit('its asymmetricKeyType must be rsa or rsa-pss');
      checkModulus(key, alg);
      return { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST };
    case 'ES256':
    case 'ES256K':
    case 'ES384':
    case 'ES512': {
      if (type !== 'ec') throw keyMisfit('its asymmetricKeyType must be ec');
      const curve = NODE_CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''];
      if (curve === undefined) throw new JwtCheckFailure('ERR_JOSE_NOT_SUPPORTED', 'Unsupported key curve for this operation');
      if (curve !== EC_CURVES[alg]) throw keyMisfit(`its curve must be ${EC_CURVES[alg]}, got ${curve}`);
      return { key, dsaEncoding: 'ieee-p1363' };
    }
    default:
      throw unsupported(alg);
  }
}

/** RFC 7518, section 3.3: RSA keys of 2048 bits or more. */
function checkModulus(key: KeyObject, alg: string): void {
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (typeof bits !== 'number' || bits < 2048) throw keyMisfit(`${alg} requires key modulusLength to be 2048 bits or larger`);
}

/** An RSA-PSS key restricted to other parameters than the algorithm's cannot verify it. */
function checkPssParameters(key: KeyObject, alg: string): void {
  const { hashAlgorithm, mgf1HashAlgorithm, saltLength } = key.asymmetricKeyDetails ?? {};
  const bits = Number.parseInt(alg.slice(-3), 10);
  if (hashAlgorithm !== undefined && (hashAlgorithm !== `sha${bits}` || mgf1HashAlgorithm !== hashAlgorithm)) throw keyMisfit(`its RSA-PSS parameters do not meet the requirements of "alg" ${alg}`);
  if (saltLength !== undefined && saltLength > bits >> 3) throw keyMisfit(`its RSA-PSS parameter saltLength does not meet the requirements of "alg" ${alg}`);
}

function unsupported(alg: string): JwtCheckFailure {
  return new JwtCheckFailure('ERR_JOSE_NOT_SUPPORTED', `alg ${alg} is not supported`);
}

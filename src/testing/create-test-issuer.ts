import { SignJWT, type JWTPayload } from 'jose';
import { z } from 'zod';
import { bearerJwt, type BearerJwtHandler } from '../token/bearer-jwt';
import type { BearerJwtConfig } from '../token/bearer-jwt-options';
import { parseWith } from '../policy/compile/parse-with';
import type { SchemaMatches } from '../policy/compile/schema-matches';
import { createDpopTestKey, type DpopTestKey } from './dpop-test-key';
import { generateTestKey, TEST_ALGORITHMS, type TestAlgorithm, type TestKey } from './test-keys';

const FILE = '<createTestIssuer options>';
/** Long enough for any test, short enough that a leaked test token is soon worthless. */
const DEFAULT_LIFETIME_SECONDS = 600;
/** Past the verifier's default clockTolerance (5 s), so an expired token is refused with it. */
const EXPIRED_SECONDS_AGO = 60;

const optionsSchema = z
  .object({
    alg: z.enum(TEST_ALGORITHMS as [TestAlgorithm, ...TestAlgorithm[]], { error: `alg must be one of ${TEST_ALGORITHMS.join(', ')}` }),
    issuer: z.string().min(1).default('https://issuer.svcgate.test/'),
    audience: z.string().min(1).default('https://api.svcgate.test'),
    /** `dpop: true` in the configuration, and a DPoP key for `sign(..., { dpop: true })`. */
    dpop: z.boolean().default(false),
  })
  .strict();

/** The options of {@link createTestIssuer}. */
export interface TestIssuerOptions {
  /** The signing algorithm; a new key (or HMAC secret) is made for it. Required. */
  alg: TestAlgorithm;
  /** The tokens' `iss`, and the configuration's `issuer`. Default `'https://issuer.svcgate.test/'`. */
  issuer?: string;
  /** The tokens' `aud`, and the configuration's `audience`. Default `'https://api.svcgate.test'`. */
  audience?: string;
  /** `dpop: true` in the configuration, and a DPoP key for `sign(..., { dpop: true })`. Default `false`. */
  dpop?: boolean;
}

// The interface and the schema must accept the same fields (see schema-matches.ts).
true satisfies SchemaMatches<typeof optionsSchema, TestIssuerOptions>;

/** A lifetime or a time from now: seconds, or a jose duration such as '2h'. */
export type TestDuration = number | string;

/** How {@link TestIssuer.sign} makes a token other than a valid one. */
export interface SignOptions {
  /** Expired a minute ago (iat eleven minutes ago). Default `false`. */
  expired?: boolean;
  /** Signed by another key of the same algorithm, under the kid of the issuer's key: the signature does not verify. Default `false`. */
  wrongKey?: boolean;
  /** aud instead of the configured audience (a wrong audience). Default: the issuer's audience. */
  audience?: string | string[];
  /** exp this long from now: seconds, or a jose duration such as `'2h'`. Default 10 minutes (`600` seconds). */
  expiresIn?: TestDuration;
  /** nbf this long from now (a token not yet valid): seconds, or a jose duration. Default: no nbf. */
  notBefore?: TestDuration;
  /** More protected header parameters (typ, ...); alg is always the issuer's. Default: none. */
  header?: Record<string, unknown>;
  /** Bound to the issuer's DPoP key (cnf.jkt); needs createTestIssuer({ dpop: true }). Default `false`. */
  dpop?: boolean;
}

export interface TestIssuer {
  /** The algorithm its tokens are signed with. */
  readonly alg: TestAlgorithm;
  /** A bearerJwt configuration that accepts this issuer's tokens: issuer, audience, algorithms and the secret or JWK set. */
  readonly config: BearerJwtConfig;
  /** A token: valid by default (iss, aud, iat, exp in 10 minutes); `claims` are added and override these. */
  sign(claims?: JWTPayload, options?: SignOptions): Promise<string>;
  /** The DPoP proof for one request with a token signed with `{ dpop: true }`. */
  dpopProof(method: string, url: string, token: string): Promise<string>;
  /** bearerJwt(config), for adapters that take a handler. */
  handler(): BearerJwtHandler;
}

/**
 * An issuer in the test's own process: a new key (or secret) for `alg`, the bearerJwt
 * configuration that trusts it, and tokens signed as a test needs them. Nothing is fetched.
 */
export async function createTestIssuer(options: TestIssuerOptions): Promise<TestIssuer> {
  const settings = parseWith(optionsSchema, options, FILE, [], 'see "Testing your routes" in docs/openapi-apis.md');
  const { alg, issuer, audience } = settings;
  const key = await generateTestKey(alg, `${alg.toLowerCase()}-test-key`);
  const dpopKey = settings.dpop ? await createDpopTestKey() : undefined;
  let wrongKey: Promise<TestKey> | undefined;
  const config: BearerJwtConfig = {
    issuer,
    audience,
    algorithms: [alg],
    ...(key.secret === undefined ? { jwks: { keys: [{ ...key.publicJwk }] } } : { secret: key.secret }),
    ...(settings.dpop ? { dpop: true } : {}),
  };
  return {
    alg,
    config,
    async sign(claims = {}, signOptions = {}) {
      const signer = signOptions.wrongKey === true ? await (wrongKey ??= generateTestKey(alg, key.kid)) : key;
      return signToken(signer, { alg, issuer, audience }, claims, signOptions, dpopKey);
    },
    dpopProof(method, url, token) {
      if (dpopKey === undefined) return Promise.reject(new Error('this issuer has no DPoP key: create it with createTestIssuer({ alg, dpop: true })'));
      return dpopKey.proof(method, url, token);
    },
    handler: () => bearerJwt(config),
  };
}

interface IssuerIdentity {
  alg: TestAlgorithm;
  issuer: string;
  audience: string;
}

async function signToken(key: TestKey, identity: IssuerIdentity, claims: JWTPayload, options: SignOptions, dpopKey: DpopTestKey | undefined): Promise<string> {
  if (options.dpop === true && dpopKey === undefined) throw new Error('sign({ dpop: true }) needs an issuer created with createTestIssuer({ alg, dpop: true })');
  const now = Math.floor(Date.now() / 1000);
  const issuedAt = options.expired === true ? now - DEFAULT_LIFETIME_SECONDS - EXPIRED_SECONDS_AGO : now;
  const payload: JWTPayload = {
    iss: identity.issuer,
    aud: options.audience ?? identity.audience,
    iat: issuedAt,
    ...(options.dpop === true && dpopKey !== undefined ? { cnf: { jkt: dpopKey.jkt } } : {}),
    ...claims,
  };
  const jwt = new SignJWT(payload).setProtectedHeader({ ...options.header, alg: identity.alg, ...(key.publicJwk === undefined ? {} : { kid: key.kid }) });
  if (claims.exp === undefined) jwt.setExpirationTime(options.expired === true ? now - EXPIRED_SECONDS_AGO : fromNow(options.expiresIn ?? DEFAULT_LIFETIME_SECONDS, now));
  if (options.notBefore !== undefined) jwt.setNotBefore(fromNow(options.notBefore, now));
  return jwt.sign(key.signingKey);
}

/** jose reads a number as a timestamp and a string as a duration from now; here both are from now. */
function fromNow(duration: TestDuration, now: number): number | string {
  return typeof duration === 'number' ? now + duration : duration;
}

import { createSecretKey } from 'node:crypto';
import fc from 'fast-check';
import { bearerJwt } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { ComparisonLog, nowSeconds } from './differential/comparison-log';
import { forgeToken, type Member } from './differential/forge-token';
import { keyAlgorithmTokens, keySetOfAll, kidTrickTokens, ODD_KIDS, trickyKeySet } from './differential/key-tricks';
import { namedTricks, type SigningContext } from './differential/named-tricks';
import { planRecipe, tokenPlans, type SignerFor, type TokenTarget } from './differential/random-tokens';
import { makeScenario, type Scenario, type ScenarioSpec } from './differential/scenario';
import { ASYMMETRIC, HMAC_SECRET, makeKeyPairs, OTHER_HMAC_SECRET, publicJwk, type KeyPair } from './differential/signing-keys';

/**
 * svcgate's bearerJwt against its oracle, jose 5.10's jwtVerify with the options svcgate documents:
 * the same accept or refuse, the same payload, the same error code and description, over more than
 * 100,000 tokens per run, most of them forged. The only answers that differ from jose's on
 * purpose are svcgate's documented refusals, which makeScenario lists (an Authorization header
 * over maxHeaderBytes or outside RFC 6750's b64token, and a DPoP-bound token sent as Bearer).
 *
 * The random part's seed is printed with any divergence; SVCGATE_DIFFERENTIAL_SEED replays it.
 */

const ISSUER = 'https://issuer.example';
const SECOND_ISSUER = 'https://second.example';
const AUDIENCE = 'api://one';
const SECOND_AUDIENCE = 'api://two';
/** The bulk: HMAC tokens cost microseconds to sign and verify. */
const RANDOM_TOKENS = Number(process.env.SVCGATE_DIFFERENTIAL_RANDOM ?? 62_000);
const CACHED_RANDOM_TOKENS = Math.ceil(RANDOM_TOKENS / 25);
/** ES256 and EdDSA: a signature costs tens of microseconds. */
const RANDOM_ASYMMETRIC_TOKENS = Math.ceil(RANDOM_TOKENS / 20);
const SEED = Number(process.env.SVCGATE_DIFFERENTIAL_SEED ?? Math.floor(Math.random() * 2 ** 31));

const json = (value: unknown): string => JSON.stringify(value);
const log = new ComparisonLog();
let keys: Record<string, KeyPair>;

beforeAll(async () => {
  keys = await makeKeyPairs();
});

/** Fails with every kind of divergence in `category`, and unless both answers occurred. */
function settle(category: string): void {
  const divergences = log.divergences.filter((divergence) => divergence.category === category);
  if (divergences.length > 0) throw new Error(`svcgate and jose disagree on ${divergences.length} kinds of token (seed ${SEED}):\n${log.report(divergences)}`);
  const counts = log.table[category];
  expect(counts?.accepted).toBeGreaterThan(0);
  expect(counts?.refused).toBeGreaterThan(0);
}

/** The scenario, or a divergence when svcgate refuses a configuration jose verifies with. */
function scenarioFor(category: string, spec: ScenarioSpec): Scenario | undefined {
  try {
    return makeScenario(spec);
  } catch (error) {
    log.configurationRefused(category, spec.name, error);
    return undefined;
  }
}

/** Tokens made once (valid for an hour, so the second they are compared in does not matter) against each scenario. */
async function compareFixedTokens(category: string, specs: readonly ScenarioSpec[], tokens: readonly { name: string; token: string }[]): Promise<void> {
  for (const spec of specs) {
    const scenario = scenarioFor(category, spec);
    if (scenario !== undefined) for (const { name, token } of tokens) await log.compare(category, scenario, name, () => token);
  }
}

/** Claims every scenario here accepts (RFC 9068's included), `exp` an hour ahead. */
function goodClaims(now: number, audience: string = AUDIENCE): Member[] {
  return [
    ['iss', json(ISSUER)],
    ['sub', '"user-1"'],
    ['aud', json(audience)],
    ['exp', { sinceNow: 3600 }],
    ['iat', { sinceNow: -10 }],
    ['client_id', '"client-1"'],
    ['jti', json(`jti-${now}`)],
    ['scope', '"read write"'],
  ].map(([name, value]) => [name, typeof value === 'object' ? String(now + value.sinceNow) : value] as Member);
}

const hmacSpecs = (): ScenarioSpec[] => [
  { name: 'HS256, defaults', secret: HMAC_SECRET, issuer: ISSUER },
  { name: 'HS256/384/512, audience', secret: HMAC_SECRET, issuer: ISSUER, algorithms: ['HS256', 'HS384', 'HS512'], audience: AUDIENCE },
  { name: 'issuer and audience lists, HS384', secret: HMAC_SECRET, issuer: [ISSUER, SECOND_ISSUER], audience: [AUDIENCE, SECOND_AUDIENCE], algorithms: ['HS384'] },
  { name: "clockTolerance '30s'", secret: HMAC_SECRET, issuer: ISSUER, clockTolerance: '30s' },
  { name: 'clockTolerance 0', secret: HMAC_SECRET, issuer: ISSUER, clockTolerance: 0 },
  { name: 'maxTokenAge 60', secret: HMAC_SECRET, issuer: ISSUER, maxTokenAge: 60 },
  { name: "maxTokenAge '1m'", secret: HMAC_SECRET, issuer: ISSUER, maxTokenAge: '1m' },
  { name: 'maxTokenAge 0', secret: HMAC_SECRET, issuer: ISSUER, maxTokenAge: 0 },
  { name: 'requiredClaims []', secret: HMAC_SECRET, issuer: ISSUER, requiredClaims: [] },
  { name: 'requiredClaims exp, sub, jti', secret: HMAC_SECRET, issuer: ISSUER, requiredClaims: ['exp', 'sub', 'jti'] },
  { name: 'profile rfc9068', secret: HMAC_SECRET, issuer: ISSUER, audience: AUDIENCE, profile: 'rfc9068' },
  { name: 'secret KeyObject, HS512', secret: createSecretKey(Buffer.from(HMAC_SECRET)), issuer: ISSUER, algorithms: ['HS512'] },
  { name: 'maxHeaderBytes 330', secret: HMAC_SECRET, issuer: ISSUER, maxHeaderBytes: 330 },
];

function target(spec: ScenarioSpec): TokenTarget {
  const kids = spec.jwks?.keys.flatMap(({ kid }) => (typeof kid === 'string' ? [kid] : []));
  return { issuers: [spec.issuer].flat(), audiences: spec.audience === undefined ? [] : [spec.audience].flat(), algorithms: spec.algorithms ?? ['HS256'], ...(kids === undefined ? {} : { kids }) };
}

const SECRETS = { right: Buffer.from(HMAC_SECRET), other: Buffer.from(OTHER_HMAC_SECRET) };

/** HMAC with the secret (or another one), ES256 with a P-256 key, EdDSA with an Ed25519 key. */
const signerFor: SignerFor = (algorithm, which) => {
  if (algorithm.startsWith('ES')) return keys[which === 'right' ? 'p256' : 'p256-other']!.privateKey;
  if (algorithm.startsWith('Ed')) return keys[which === 'right' ? 'ed25519' : 'ed25519-other']!.privateKey;
  return SECRETS[which];
};

/** Random tokens from fast-check, each compared once (or twice, with the cache on) in its scenario. */
async function compareRandom(category: string, specs: readonly ScenarioSpec[], runs: number, seed: number, twice = false): Promise<void> {
  const scenarios = specs.map((spec) => scenarioFor(category, spec));
  const targets = specs.map(target);
  await fc.assert(
    fc.asyncProperty(tokenPlans(targets), async (plan) => {
      const scenario = scenarios[plan.target];
      if (scenario === undefined) return;
      const recipe = { name: 'random', detail: () => json(plan) };
      const make = (now: number): string => forgeToken(planRecipe(plan, targets[plan.target]!, signerFor), now);
      await (twice ? log.compareTwice(category, scenario, recipe, make) : log.compare(category, scenario, recipe, make));
    }),
    { numRuns: runs, seed },
  );
}

describe('svcgate verifies a token as jose 5.10 jwtVerify does', () => {
  test(`${RANDOM_TOKENS} random HMAC tokens, well-formed and forged (fast-check)`, async () => {
    const category = 'random HMAC';
    await compareRandom(category, hmacSpecs(), RANDOM_TOKENS, SEED);
    settle(category);
  }, 180_000);

  test(`${RANDOM_ASYMMETRIC_TOKENS} random ES256 and EdDSA tokens, through public keys and a local JWK set (fast-check)`, async () => {
    const category = 'random ES256 and EdDSA';
    const jwks = { keys: ['p256', 'p256-other', 'ed25519', 'ed448'].map((name) => publicJwk(keys[name]!, { kid: name })) };
    const specs: ScenarioSpec[] = [
      { name: 'P-256 public key, ES256', secret: keys.p256!.publicKey, issuer: ISSUER, audience: AUDIENCE, algorithms: ['ES256'] },
      { name: 'Ed25519 public key, EdDSA and Ed25519', secret: keys.ed25519!.publicKey, issuer: [ISSUER, SECOND_ISSUER], algorithms: ['EdDSA', 'Ed25519'], maxTokenAge: '1h' },
      { name: 'local JWK set with kids, ES256 and EdDSA', jwks, issuer: ISSUER, audience: [AUDIENCE, SECOND_AUDIENCE], algorithms: ['ES256', 'EdDSA'] },
      { name: 'local JWK set without kids, profile rfc9068', jwks: { keys: jwks.keys.map(({ kid: _kid, ...jwk }) => jwk) }, issuer: ISSUER, audience: AUDIENCE, algorithms: ['EdDSA', 'ES256'], profile: 'rfc9068' },
    ];
    await compareRandom(category, specs, RANDOM_ASYMMETRIC_TOKENS, SEED + 2);
    settle(category);
  }, 120_000);

  test(`${RANDOM_ASYMMETRIC_TOKENS} random tokens against several issuers, each with its own key (issuers)`, async () => {
    const category = 'several issuers';
    const third = 'https://third.example';
    const issuers = [
      { issuer: ISSUER, secret: HMAC_SECRET, algorithms: ['HS256'], audience: AUDIENCE },
      { issuer: [SECOND_ISSUER, `${SECOND_ISSUER}/v2`], secret: keys.p256!.publicKey, algorithms: ['ES256'], audience: SECOND_AUDIENCE },
      { issuer: third, jwks: { keys: [publicJwk(keys.ed25519!, { kid: 'ed25519' })] }, algorithms: ['EdDSA'] },
    ];
    // The generator's view: every issuer, audience and algorithm, so that tokens name one entry and are signed for another too.
    const spec: ScenarioSpec = { name: 'three issuers: HS256, ES256, EdDSA', issuer: [ISSUER, SECOND_ISSUER, third], audience: [AUDIENCE, SECOND_AUDIENCE], algorithms: ['HS256', 'ES256', 'EdDSA'], issuers };
    await compareRandom(category, [spec, { ...spec, name: 'three issuers, maxTokenAge 60', maxTokenAge: 60 }], RANDOM_ASYMMETRIC_TOKENS, SEED + 3);
    settle(category);
  }, 120_000);

  test('named forgeries against HMAC, RSA, EC, EdDSA keys and a JWK set', async () => {
    const category = 'named forgeries';
    const claims = (now: number): Member[] => goodClaims(now);
    const contexts: [ScenarioSpec, Omit<SigningContext, 'maxHeaderBytes'>][] = [
      [{ name: 'HS256, audience', secret: HMAC_SECRET, issuer: ISSUER, audience: AUDIENCE }, { algorithm: 'HS256', key: SECRETS.right, header: [], claims, refusedAlgorithm: { algorithm: 'HS384', key: SECRETS.right } }],
      [
        { name: 'HS512 KeyObject, maxHeaderBytes 100,000', secret: createSecretKey(SECRETS.right), issuer: ISSUER, algorithms: ['HS512'], maxHeaderBytes: 100_000 },
        { algorithm: 'HS512', key: SECRETS.right, header: [], claims, refusedAlgorithm: { algorithm: 'HS256', key: SECRETS.right } },
      ],
      [
        { name: 'HS256, profile rfc9068', secret: HMAC_SECRET, issuer: ISSUER, audience: AUDIENCE, profile: 'rfc9068' },
        { algorithm: 'HS256', key: SECRETS.right, header: [['typ', '"at+jwt"']], claims, refusedAlgorithm: { algorithm: 'HS512', key: SECRETS.right } },
      ],
      [
        { name: 'RSA public key, RS256 and PS256', secret: keys.rsa2048!.publicKey, issuer: ISSUER, audience: AUDIENCE, algorithms: ['RS256', 'PS256'] },
        { algorithm: 'RS256', key: keys.rsa2048!.privateKey, header: [], claims, refusedAlgorithm: { algorithm: 'RS384', key: keys.rsa2048!.privateKey } },
      ],
      [
        { name: 'P-256 public key, ES256', secret: keys.p256!.publicKey, issuer: ISSUER, audience: AUDIENCE, algorithms: ['ES256'] },
        { algorithm: 'ES256', key: keys.p256!.privateKey, header: [], claims, refusedAlgorithm: { algorithm: 'HS256', key: keys.p256!.publicKey.export({ format: 'der', type: 'spki' }) } },
      ],
      [
        { name: 'Ed25519 public key, EdDSA', secret: keys.ed25519!.publicKey, issuer: ISSUER, audience: AUDIENCE, algorithms: ['EdDSA'] },
        { algorithm: 'EdDSA', key: keys.ed25519!.privateKey, header: [], claims, refusedAlgorithm: { algorithm: 'Ed25519', key: keys.ed25519!.privateKey } },
      ],
      ...(['p384', 'secp256k1', 'ed448'] as const).map((name): [ScenarioSpec, Omit<SigningContext, 'maxHeaderBytes'>] => {
        const pair = keys[name]!;
        const algorithm = pair.algorithms[0]!;
        return [
          { name: `${name} public key, ${algorithm}`, secret: pair.publicKey, issuer: ISSUER, audience: AUDIENCE, algorithms: [algorithm] },
          { algorithm, key: pair.privateKey, header: [], claims, refusedAlgorithm: { algorithm: 'HS256', key: SECRETS.right } },
        ];
      }),
      [
        { name: 'local JWK set, every key with a kid', jwks: keySetOfAll(keys, true), issuer: ISSUER, audience: AUDIENCE, algorithms: ['RS256', 'ES256', 'EdDSA'] },
        { algorithm: 'RS256', key: keys.rsa2048!.privateKey, header: [['kid', '"rsa2048"']], claims, refusedAlgorithm: { algorithm: 'PS256', key: keys.rsa2048!.privateKey } },
      ],
    ];
    for (const [spec, context] of contexts) {
      const scenario = scenarioFor(category, spec);
      if (scenario === undefined) continue;
      for (const trick of namedTricks({ ...context, maxHeaderBytes: spec.maxHeaderBytes ?? 8192 })) await log.compare(category, scenario, trick.name, trick.make);
    }
    settle(category);
  }, 120_000);

  test('every key type x every algorithm, misfit pairs and twisted signatures included', async () => {
    const category = 'keys x algorithms';
    const now = nowSeconds();
    // An hour's validity: these tokens do not depend on the second they are compared in.
    const tokens = keyAlgorithmTokens(keys, goodClaims(now), now);
    const specs: ScenarioSpec[] = [
      { name: 'HMAC secret, HS256/384/512', secret: HMAC_SECRET, issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256', 'HS384', 'HS512'] },
      ...Object.values(keys).map((pair): ScenarioSpec => ({ name: `${pair.name} public key, ${pair.algorithms.join('/')}`, secret: pair.publicKey, issuer: ISSUER, audience: AUDIENCE, algorithms: pair.algorithms })),
      { name: 'local JWK set of every key, every asymmetric algorithm', jwks: keySetOfAll(keys, true), issuer: ISSUER, audience: AUDIENCE, algorithms: [...ASYMMETRIC] },
      { name: 'local JWK set of every key without kid', jwks: keySetOfAll(keys, false), issuer: ISSUER, audience: AUDIENCE, algorithms: [...ASYMMETRIC] },
    ];
    await compareFixedTokens(category, specs, tokens);
    settle(category);
  }, 120_000);

  test('exp, nbf and iat at the edges of clockTolerance and maxTokenAge, and values that are no time', async () => {
    const category = 'time claims';
    const offsets = [-86_400, -3601, -3600, -3599, -121, -120, -119, -91, -90, -89, -61, -60, -59, -31, -30, -29, -11, -10, -9, -6, -5.5, -5, -4.5, -4, -1, -0.001, 0, 0.001, 1, 4, 5, 6, 9, 10, 11, 29, 30, 31, 59, 60, 61, 3600, 86_400];
    const odd = ['"1999999999"', '"0"', 'null', 'true', 'false', '[]', '[0]', '{}', '1e400', '-1e400', '-1', '0', '-0', '1.5e9', '1E10', '9007199254740993', '4102444800000', '""'];
    const base = (now: number): Member[] => [['iss', json(ISSUER)], ['sub', '"user-1"'], ['exp', String(now + 600)], ['iat', String(now - 1)]];
    const specs: ScenarioSpec[] = [
      { name: 'clockTolerance 5 (default)', secret: HMAC_SECRET, issuer: ISSUER },
      { name: 'clockTolerance 0', secret: HMAC_SECRET, issuer: ISSUER, clockTolerance: 0 },
      { name: "clockTolerance '30s'", secret: HMAC_SECRET, issuer: ISSUER, clockTolerance: '30s' },
      { name: "clockTolerance '1 minute'", secret: HMAC_SECRET, issuer: ISSUER, clockTolerance: '1 minute' },
      { name: "clockTolerance '0s'", secret: HMAC_SECRET, issuer: ISSUER, clockTolerance: '0s' },
      { name: 'clockTolerance 2.5', secret: HMAC_SECRET, issuer: ISSUER, clockTolerance: 2.5 },
      { name: "clockTolerance '+3 secs'", secret: HMAC_SECRET, issuer: ISSUER, clockTolerance: '+3 secs' },
      { name: "clockTolerance '10 s from now'", secret: HMAC_SECRET, issuer: ISSUER, clockTolerance: '10 s from now' },
      { name: 'maxTokenAge 60', secret: HMAC_SECRET, issuer: ISSUER, maxTokenAge: 60 },
      { name: 'maxTokenAge 60, clockTolerance 0', secret: HMAC_SECRET, issuer: ISSUER, maxTokenAge: 60, clockTolerance: 0 },
      { name: "maxTokenAge '1m'", secret: HMAC_SECRET, issuer: ISSUER, maxTokenAge: '1m' },
      { name: "maxTokenAge '90 seconds'", secret: HMAC_SECRET, issuer: ISSUER, maxTokenAge: '90 seconds' },
      { name: 'maxTokenAge 0', secret: HMAC_SECRET, issuer: ISSUER, maxTokenAge: 0 },
      { name: "maxTokenAge '0s'", secret: HMAC_SECRET, issuer: ISSUER, maxTokenAge: '0s' },
      { name: 'maxTokenAge 2.5', secret: HMAC_SECRET, issuer: ISSUER, maxTokenAge: 2.5 },
      { name: "maxTokenAge '1.5 mins'", secret: HMAC_SECRET, issuer: ISSUER, maxTokenAge: '1.5 mins' },
      { name: "maxTokenAge '1 minute from now'", secret: HMAC_SECRET, issuer: ISSUER, maxTokenAge: '1 minute from now' },
      { name: 'requiredClaims [] (exp optional)', secret: HMAC_SECRET, issuer: ISSUER, requiredClaims: [] },
      { name: 'requiredClaims nbf, iat', secret: HMAC_SECRET, issuer: ISSUER, requiredClaims: ['nbf', 'iat'] },
    ];
    for (const spec of specs) {
      const scenario = scenarioFor(category, spec);
      if (scenario === undefined) continue;
      const token = (members: (now: number) => Member[]) => (now: number) => forgeToken({ header: { json: [['alg', '"HS256"']] }, payload: { json: members(now) } , signer: { algorithm: 'HS256', key: SECRETS.right } }, now);
      for (const claim of ['exp', 'nbf', 'iat']) {
        for (const offset of offsets) await log.compare(category, scenario, `${claim} now${offset < 0 ? '' : '+'}${offset}`, token((now) => [...base(now), [claim, String(now + offset)]]));
        for (const value of odd) await log.compare(category, scenario, `${claim} ${value}`, token((now) => [...base(now), [claim, value]]));
        await log.compare(category, scenario, `no ${claim}`, token((now) => base(now).filter(([name]) => name !== claim)));
      }
      // Two claims at their edges together: which failure jose reports first matters for the code.
      for (const exp of [-6, -5, 0, 5]) {
        for (const iat of [-66, -65, -61, -60, 5, 6]) {
          for (const nbf of [undefined, 5, 6]) {
            const members = (now: number): Member[] => [['iss', json(ISSUER)], ['exp', String(now + exp)], ['iat', String(now + iat)], ...(nbf === undefined ? [] : [['nbf', String(now + nbf)] as Member])];
            await log.compare(category, scenario, `exp now${exp}, iat now${iat}, nbf ${nbf ?? 'absent'}`, token(members));
          }
        }
      }
    }
    settle(category);
  }, 120_000);

  test('issuer, audience, typ and required claims', async () => {
    const category = 'claim checks';
    const issuers = [json(ISSUER), json(SECOND_ISSUER), '"https://third.example"', json(ISSUER.toUpperCase()), json(`${ISSUER}/`), json([ISSUER]), '42', 'null', '{}', undefined];
    const audiences = [json(AUDIENCE), json(SECOND_AUDIENCE), json([AUDIENCE]), json(['x', SECOND_AUDIENCE]), '[]', '"x"', '5', 'null', '[5]', json([[AUDIENCE]]), '{}', undefined];
    const types = [undefined, '"JWT"', '"at+jwt"', '"AT+JWT"', '"application/at+jwt"', '"application/at+JWT"', '"Application/At+Jwt"', '"application/application/at+jwt"', '"at+jwt "', '"x-at+jwt"', '"at+jwt; charset=utf-8"', '5', 'null', '""'];
    const specs: ScenarioSpec[] = [
      { name: 'one issuer, no audience', secret: HMAC_SECRET, issuer: ISSUER },
      { name: 'two issuers, one audience', secret: HMAC_SECRET, issuer: [ISSUER, SECOND_ISSUER], audience: AUDIENCE },
      { name: 'one issuer, two audiences', secret: HMAC_SECRET, issuer: ISSUER, audience: [AUDIENCE, SECOND_AUDIENCE] },
      { name: 'profile rfc9068', secret: HMAC_SECRET, issuer: ISSUER, audience: AUDIENCE, profile: 'rfc9068' },
      { name: 'profile rfc9068, requiredClaims scope', secret: HMAC_SECRET, issuer: [ISSUER, SECOND_ISSUER], audience: [AUDIENCE, SECOND_AUDIENCE], profile: 'rfc9068', requiredClaims: ['scope'] },
      // jose asks `name in payload`: inherited names count as present.
      { name: 'requiredClaims naming inherited members', secret: HMAC_SECRET, issuer: ISSUER, requiredClaims: ['exp', 'toString', 'constructor', '__proto__'] },
      { name: 'requiredClaims sub, nbf', secret: HMAC_SECRET, issuer: ISSUER, audience: AUDIENCE, requiredClaims: ['sub', 'nbf'] },
    ];
    for (const spec of specs) {
      const scenario = scenarioFor(category, spec);
      if (scenario === undefined) continue;
      const withTypes = spec.profile === 'rfc9068' ? types : [undefined, '"JWT"', '"at+jwt"'];
      for (const iss of issuers) {
        for (const aud of audiences) {
          for (const typ of withTypes) {
            const header: Member[] = [['alg', '"HS256"'], ...(typ === undefined ? [] : [['typ', typ] as Member])];
            const payload = (now: number): Member[] => [
              ...goodClaims(now).filter(([name]) => name !== 'iss' && name !== 'aud'),
              ...(iss === undefined ? [] : [['iss', iss] as Member]),
              ...(aud === undefined ? [] : [['aud', aud] as Member]),
            ];
            await log.compare(category, scenario, `iss ${iss ?? 'absent'}, aud ${aud ?? 'absent'}, typ ${typ ?? 'absent'}`, (now) =>
              forgeToken({ header: { json: header }, payload: { json: payload(now) }, signer: { algorithm: 'HS256', key: SECRETS.right } }, now),
            );
          }
        }
      }
      for (const missing of ['iss', 'sub', 'aud', 'exp', 'iat', 'client_id', 'jti', 'scope', 'nbf']) {
        await log.compare(category, scenario, `without ${missing}`, (now) =>
          forgeToken({ header: { json: [['alg', '"HS256"'], ['typ', '"at+jwt"']] }, payload: { json: goodClaims(now).filter(([name]) => name !== missing) }, signer: { algorithm: 'HS256', key: SECRETS.right } }, now),
        );
      }
    }
    settle(category);
  }, 120_000);

  // Documented refusal: jose throws on a duration it cannot read at each token (after the signature
  // and the iss and aud checks, so every valid token is refused); svcgate reads durations at start-up.
  // Negative durations too: jose reads them, but with one the token cache served tokens past the second jose refused them.
  test.each([{ clockTolerance: 'soon' }, { maxTokenAge: 'a while' }, { clockTolerance: '5 s ago from now' }, { clockTolerance: '-5s' }, { clockTolerance: '10 s ago' }, { maxTokenAge: '-1h' }])('a duration jose cannot read, or a negative one (%p), is a ConfigError at start-up', (duration) => {
    expect(() => bearerJwt({ secret: HMAC_SECRET, issuer: ISSUER, audience: false, ...duration })).toThrow(ConfigError);
  });

  test('kid tricks against local JWK sets', async () => {
    const category = 'JWK set kid tricks';
    const { set, signerOf } = trickyKeySet(keys);
    const algorithms = ['RS256', 'RS384', 'PS256', 'ES256', 'ES384', 'ES256K', 'EdDSA', 'Ed25519'];
    const specs: ScenarioSpec[] = [
      { name: 'tricky JWKs', jwks: set, issuer: ISSUER, audience: AUDIENCE, algorithms },
      { name: 'one RSA key, no kid', jwks: { keys: [keySetOfAll(keys, false).keys[0]!] }, issuer: ISSUER, audience: AUDIENCE, algorithms },
      { name: 'two RSA keys, no kid', jwks: { keys: keySetOfAll(keys, false).keys.slice(0, 2) }, issuer: ISSUER, audience: AUDIENCE, algorithms },
      { name: 'every key, with kids', jwks: keySetOfAll(keys, true), issuer: ISSUER, audience: AUDIENCE, algorithms },
      { name: 'every key, no kid', jwks: keySetOfAll(keys, false), issuer: ISSUER, audience: AUDIENCE, algorithms },
    ];
    const kids = [...new Set([...set.keys.map((jwk) => json(jwk.kid)), ...keySetOfAll(keys, true).keys.map((jwk) => json(jwk.kid)), ...ODD_KIDS])];
    const now = nowSeconds();
    await compareFixedTokens(category, specs, kidTrickTokens(keys, kids, algorithms, signerOf, goodClaims(now), now));
    settle(category);
  }, 120_000);

  test('with the token cache on, a token verified twice gets the same answer, and another token with the same signature is no hit', async () => {
    const category = 'token cache on';
    const specs = hmacSpecs().map((spec) => ({ ...spec, name: `${spec.name}, cache on`, cache: true }));
    await compareRandom(category, specs, CACHED_RANDOM_TOKENS, SEED + 1, true);
    const cached = scenarioFor(category, { name: 'HS256, audience, cache on', secret: HMAC_SECRET, issuer: ISSUER, audience: AUDIENCE, cache: true });
    const jwksCached = scenarioFor(category, { name: 'local JWK set, cache on', jwks: keySetOfAll(keys, true), issuer: ISSUER, audience: AUDIENCE, algorithms: ['ES256', 'EdDSA'], cache: true });
    for (const [scenario, algorithm, key, kid] of [
      [cached, 'HS256', SECRETS.right, undefined],
      [jwksCached, 'ES256', keys.p256!.privateKey, 'p256'],
      [jwksCached, 'EdDSA', keys.ed25519!.privateKey, 'ed25519'],
    ] as const) {
      if (scenario === undefined) continue;
      for (let index = 0; index < 150; index += 1) {
        const header: Member[] = [['alg', json(algorithm)], ...(kid === undefined ? [] : [['kid', json(kid)] as Member])];
        const signer = { algorithm, key };
        const valid = (now: number): string => forgeToken({ header: { json: header }, payload: { json: [...goodClaims(now), ['n', String(index)]] }, signer }, now);
        await log.compareTwice(category, scenario, 'valid, cached', valid);
        // The cache is keyed by a token's last characters: these share them with the cached token.
        await log.compare(category, scenario, 'other claims under the cached signature', (now) => `${valid(now).split('.')[0]}.${forgeToken({ header: { json: header }, payload: { json: [...goodClaims(now), ['n', String(index)], ['admin', 'true']] } }, now).split('.')[1]}.${valid(now).split('.')[2]}`);
        await log.compare(category, scenario, "a '~' inside the cached token's payload", (now) => {
          const [head, body, signature] = valid(now).split('.');
          return `${head}.${body!.slice(0, 5)}~${body!.slice(5)}.${signature}`;
        });
        await log.compareTwice(category, scenario, "a '~' after the cached token's signature", (now) => `${valid(now)}~`);
      }
    }
    // A cached answer must not outlive jose's: tokens at the edge of expiry (exp, or iat + maxTokenAge), asked again a second later.
    const edges: [string, Partial<ScenarioSpec>, 'exp' | 'iat', number[]][] = [
      ["clockTolerance '2s'", { clockTolerance: '2s' }, 'exp', [-1, 0, 3]],
      ['clockTolerance 5', {}, 'exp', [-4, -3, 1]],
      ['clockTolerance 0', { clockTolerance: 0 }, 'exp', [1, 2]],
      ["clockTolerance '0s', maxTokenAge '10s'", { clockTolerance: '0s', maxTokenAge: '10s' }, 'iat', [-9, -10, 0]],
      ['maxTokenAge 10', { maxTokenAge: 10 }, 'iat', [-14, -15, -10]],
    ];
    const batch = edges.flatMap(([name, options, claim, offsets]) => {
      const scenario = scenarioFor(category, { name: `${name}, cache on`, secret: HMAC_SECRET, issuer: ISSUER, ...options, cache: true });
      const claims = (now: number, offset: number): Member[] => [['iss', json(ISSUER)], ['exp', String(now + (claim === 'exp' ? offset : 600))], ...(claim === 'iat' ? [['iat', String(now + offset)] as Member] : [])];
      return scenario === undefined
        ? []
        : offsets.map((offset) => ({
            scenario,
            recipe: `${claim} now${offset < 0 ? '' : '+'}${offset}, answered in one second and again in the next`,
            make: (now: number) => forgeToken({ header: { json: [['alg', '"HS256"']] }, payload: { json: claims(now, offset) }, signer: { algorithm: 'HS256', key: SECRETS.right } }, now),
          }));
    });
    await log.compareInTwoSeconds(category, batch);
    settle(category);
  }, 120_000);

  test('at least 100,000 tokens were compared, each category with accepts and refusals', () => {
    console.log(`differential test of token verification (seed ${SEED}): ${log.total} tokens\n${JSON.stringify(log.table, null, 1)}`);
    expect(log.total).toBeGreaterThanOrEqual(100_000);
    for (const [category, { accepted, refused }] of Object.entries(log.table)) {
      expect([category, accepted > 0, refused > 0]).toEqual([category, true, true]);
    }
  });
});

import fc from 'fast-check';
import { BYTE_TWISTS_ALL, PART_ENCODINGS, SIGNATURE_TWISTS, type ByteTwist, type Member, type PartEncoding, type PartRecipe, type SignatureTwist, type TokenRecipe, type ValueText } from './forge-token';
import type { SigningMaterial } from './signing-keys';

/**
 * Random tokens: mostly well-formed, with every field sometimes wrong in one of the ways a forger
 * or a broken issuer would write it. HMAC ones are the bulk of the run (signing costs
 * microseconds); ES256 and EdDSA ones go through keys and a local JWK set.
 */

/** What the generator needs to know of a scenario to make tokens it accepts as often as tokens it refuses. */
export interface TokenTarget {
  issuers: readonly string[];
  audiences: readonly string[];
  algorithms: readonly string[];
  /** The kids of its JWK set, if any. */
  kids?: readonly string[];
}

/** A token, with its key named rather than held, so the recipe prints as it is. */
export interface TokenPlan {
  target: number;
  header: PartRecipe;
  payload: PartRecipe;
  /** 'header': the header's (last) alg when the target accepts it, else the target's first. */
  signAlgorithm: string;
  signKey: 'right' | 'other';
  signature: SignatureTwist;
}

/** The key that signs `algorithm`: the target's own, or another of the same kind. */
export type SignerFor = (algorithm: string, which: 'right' | 'other') => SigningMaterial;

export function planRecipe(plan: TokenPlan, target: TokenTarget, signerFor: SignerFor): TokenRecipe {
  const algorithm = plan.signAlgorithm === 'header' ? headerAlgorithm(plan.header, target) : plan.signAlgorithm;
  return { header: plan.header, payload: plan.payload, signer: { algorithm, key: signerFor(algorithm, plan.signKey) }, signature: plan.signature };
}

function headerAlgorithm(header: PartRecipe, target: TokenTarget): string {
  const alg = typeof header.json === 'string' ? undefined : header.json.filter(([name]) => name === 'alg').at(-1)?.[1];
  const named = typeof alg === 'string' && alg.startsWith('"') ? (JSON.parse(alg) as unknown) : undefined;
  return typeof named === 'string' && target.algorithms.includes(named) ? named : target.algorithms[0]!;
}

function weighted<T>(...entries: [T, number][]): fc.Arbitrary<T> {
  return fc.oneof(...entries.map(([value, weight]) => ({ arbitrary: fc.constant(value), weight })));
}

/** A JSON value written as text, often absent (undefined). */
type Choice = ValueText | undefined;

const json = (value: unknown): string => JSON.stringify(value);

/** Odd values for a NumericDate: not numbers, or numbers JSON can write but a clock cannot. */
const ODD_TIMES = ['"1999999999"', 'null', 'true', '[]', '{}', '1e400', '-1e400', '-1', '0', '-0', '1.5e9', '1E10', '9007199254740993', '4102444800000', '"now"'];
/** Around each tolerance the scenarios use (0, 5, 30 s): the edges and one second either side. */
const EDGES = [-61, -60, -59, -31, -30, -29, -6, -5.5, -5, -4.5, -4, -1, -0.5, 0, 0.5, 1, 4, 5, 6, 29, 30, 31, 59, 60, 61];

function timeClaim(usual: number | undefined, absentWeight: number): fc.Arbitrary<Choice> {
  return fc.oneof(
    { arbitrary: fc.constant(usual === undefined ? undefined : { sinceNow: usual }), weight: 16 },
    { arbitrary: fc.constantFrom(...EDGES).map((sinceNow) => ({ sinceNow })), weight: 3 },
    { arbitrary: fc.integer({ min: -100_000, max: 100_000 }).map((sinceNow) => ({ sinceNow })), weight: 1 },
    { arbitrary: fc.constantFrom(...ODD_TIMES), weight: 1 },
    { arbitrary: fc.constant(undefined), weight: absentWeight },
  );
}

/** Any code points, lone surrogates included (JSON.stringify escapes them). Not fc.string({ unit: 'binary' }), which costs a second to build. */
const anyText = fc.array(fc.integer({ min: 0, max: 0x10ffff }), { maxLength: 6 }).map((points) => json(points.map((point) => String.fromCodePoint(point)).join('')));

function stringClaim(right: readonly string[], odd: readonly string[]): fc.Arbitrary<Choice> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...right).map(json), weight: 24 },
    { arbitrary: fc.constant(json(right)), weight: 1 },
    { arbitrary: fc.constantFrom(...odd), weight: 2 },
    { arbitrary: anyText, weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 1 },
  );
}

function claims(target: TokenTarget): fc.Arbitrary<Member[]> {
  const audiences = target.audiences.length > 0 ? target.audiences : ['api://any'];
  return fc
    .record({
      iss: stringClaim(target.issuers, ['"https://other.example"', '42', 'null', '["https://other.example"]', json(`${target.issuers[0]}/`), json(target.issuers[0]!.toUpperCase())]),
      aud: fc.oneof(
        { arbitrary: stringClaim(audiences, ['"api://other"', '7', 'null', '[]', '[7,"api://other"]', '{}']), weight: 6 },
        { arbitrary: fc.constantFrom(...audiences).map((audience) => json(['api://other', audience])), weight: 2 },
      ),
      exp: timeClaim(600, 1),
      nbf: timeClaim(-10, 20),
      iat: timeClaim(-10, 3),
      sub: weighted<Choice>(['"user-1"', 6], [undefined, 2], ['7', 1], ['""', 1]),
      client_id: weighted<Choice>(['"client-1"', 6], [undefined, 2]),
      jti: weighted<Choice>(['"jti-1"', 6], [undefined, 2], ['null', 1]),
      scope: weighted<Choice>(['"read write"', 3], [undefined, 3], ['["read"]', 1]),
      cnf: weighted<Choice>([undefined, 40], ['{"jkt":"0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}', 1], ['{"jkt":null}', 1], ['{"x5t#S256":"abc"}', 1], ['"jkt"', 1]),
      extra: fc.option(fc.jsonValue({ maxDepth: 2 }).map(json), { freq: 4 }),
      proto: weighted<Choice>([undefined, 30], ['{"exp":4102444800,"iss":"https://other.example"}', 1], ['null', 1], ['{"admin":true}', 1]),
      repeated: fc.array(fc.tuple(fc.constantFrom('exp', 'iss', 'aud', 'nbf', 'iat', 'sub'), fc.oneof(fc.constantFrom(...ODD_TIMES), fc.constantFrom(...EDGES).map((sinceNow) => ({ sinceNow })), fc.constantFrom(...target.issuers).map(json))), { maxLength: 2 }),
      repeatedFirst: fc.boolean(),
    })
    .map(({ extra, proto, repeated, repeatedFirst, ...named }) => {
      const members: Member[] = Object.entries(named).flatMap(([name, value]) => (value === undefined ? [] : [[name, value] as const]));
      if (extra !== null) members.push(['x-claim', extra]);
      if (proto !== undefined) members.push(['__proto__', proto]);
      // A repeated name: JSON.parse keeps the last one written.
      return repeatedFirst ? [...repeated, ...members] : [...members, ...repeated];
    });
}

const ODD_ALGS = ['none', 'None', 'NONE', '', 'RS256', 'ES256', 'EdDSA', 'hs256', 'HS256 ', 'HS1', 'HS256\u0000'];

function header(target: TokenTarget): fc.Arbitrary<Member[]> {
  return fc
    .record({
      alg: fc.oneof(
        { arbitrary: fc.constantFrom(...target.algorithms).map(json), weight: 40 },
        { arbitrary: fc.constantFrom('HS256', 'HS384', 'HS512', 'ES256', 'EdDSA', 'Ed25519').map(json), weight: 2 },
        { arbitrary: fc.constantFrom(...ODD_ALGS).map(json), weight: 2 },
        { arbitrary: fc.constantFrom('256', 'null', '["HS256"]', '{"HS256":1}', 'true'), weight: 1 },
        { arbitrary: fc.constant(undefined), weight: 1 },
      ),
      typ: weighted<Choice>([undefined, 12], ['"JWT"', 4], ['"at+jwt"', 8], ['"application/at+JWT"', 1], ['"AT+JWT"', 1], ['"application/jwt"', 1], ['"application/application/at+jwt"', 1], ['" at+jwt"', 1], ['5', 1], ['null', 1]),
      kid: fc.oneof(
        { arbitrary: weighted<Choice>([undefined, 6], ['"k1"', 2], ['5', 1], ['"__proto__"', 1], ['null', 1]), weight: 1 },
        // A JWK set's own kids, most of the time.
        ...(target.kids === undefined || target.kids.length === 0 ? [] : [{ arbitrary: fc.constantFrom(...target.kids).map(json), weight: 3 }]),
      ),
      crit: weighted<[Choice, Choice]>(
        [[undefined, undefined], 80],
        [['["b64"]', 'true'], 2],
        [['["b64"]', 'false'], 2],
        [['["b64"]', '"false"'], 1],
        [['["b64"]', undefined], 1],
        [['["b64","b64"]', 'true'], 1],
        [['[]', undefined], 1],
        [['["x-ext"]', undefined], 1],
        [['["exp"]', undefined], 1],
        [['[""]', undefined], 1],
        [['[1]', undefined], 1],
        [['"b64"', 'true'], 1],
        [['null', undefined], 1],
        [['{}', undefined], 1],
        [[undefined, 'false'], 2],
      ),
      repeatedAlg: weighted<Choice>([undefined, 20], ['"none"', 1], ['"HS256"', 1], ['"RS256"', 1], ['""', 1]),
      repeatedFirst: fc.boolean(),
      proto: weighted<Choice>([undefined, 30], ['{"alg":"HS256"}', 1], ['{"crit":["x"]}', 1]),
    })
    .map(({ alg, typ, kid, crit: [crit, b64], repeatedAlg, repeatedFirst, proto }) => {
      const members: Member[] = Object.entries({ alg, typ, kid, crit, b64 }).flatMap(([name, value]) => (value === undefined ? [] : [[name, value] as const]));
      if (proto !== undefined) members.push(['__proto__', proto]);
      if (repeatedAlg === undefined) return members;
      return repeatedFirst ? [['alg', repeatedAlg] as const, ...members] : [...members, ['alg', repeatedAlg] as const];
    });
}

const NOT_OBJECTS = ['[]', '1', 'null', '"text"', 'true', '', '{', 'not json', '[{"alg":"HS256"}]', '{"alg":"HS256",}', '{"alg":"HS256"}x'];

function part(members: fc.Arbitrary<Member[]>): fc.Arbitrary<PartRecipe> {
  return fc.record({
    json: fc.oneof({ arbitrary: members, weight: 60 }, { arbitrary: fc.constantFrom(...NOT_OBJECTS), weight: 1 }),
    bytes: fc.oneof({ arbitrary: fc.constant<ByteTwist>('none'), weight: 60 }, { arbitrary: fc.constantFrom<ByteTwist>(...BYTE_TWISTS_ALL), weight: 2 }),
    encoding: fc.oneof({ arbitrary: fc.constant<PartEncoding>('canonical'), weight: 60 }, { arbitrary: fc.constantFrom(...PART_ENCODINGS), weight: 3 }),
    at: fc.integer({ min: 0, max: 999 }).map((permille) => permille / 1000),
  });
}

/** One random token plan for one of `targets` (each target's arbitrary built once: building one costs more than drawing from it). */
export function tokenPlans(targets: readonly TokenTarget[]): fc.Arbitrary<TokenPlan> {
  return fc.oneof(
    ...targets.map((target, index) =>
      fc.record({
        target: fc.constant(index),
        header: part(header(target)),
        payload: part(claims(target)),
        signAlgorithm: fc.oneof({ arbitrary: fc.constant('header'), weight: 14 }, { arbitrary: fc.constantFrom('HS256', 'HS512', 'ES256', 'EdDSA'), weight: 1 }),
        signKey: weighted<'right' | 'other'>(['right', 14], ['other', 1]),
        signature: fc.oneof({ arbitrary: fc.constant<SignatureTwist>('intact'), weight: 80 }, { arbitrary: fc.constantFrom(...SIGNATURE_TWISTS), weight: 5 }),
      }),
    ),
  );
}

import { BYTE_TWISTS_ALL, forgeToken, PART_ENCODINGS, SIGNATURE_TWISTS, type Member, type PartRecipe, type TokenRecipe } from './forge-token';
import type { SigningMaterial } from './signing-keys';

/**
 * The forgeries and oddities of the differential test, each by name, for any scenario: what is
 * needed is how that scenario's tokens are signed and which claims it accepts.
 */
export interface SigningContext {
  /** The algorithm the scenario accepts and its key signs. */
  algorithm: string;
  key: SigningMaterial;
  /** Header members every token of the scenario carries besides alg (a kid). */
  header: readonly Member[];
  /** Claims the scenario accepts at `now`. */
  claims: (now: number) => Member[];
  /** An algorithm the scenario does not accept, with a key that signs it. */
  refusedAlgorithm: { algorithm: string; key: SigningMaterial };
  /** The longest Authorization header accepted. */
  maxHeaderBytes: number;
}

export interface Trick {
  name: string;
  make: (now: number) => string;
}

const json = (value: unknown): string => JSON.stringify(value);
const NOT_OBJECTS = ['[]', '[1,2]', '1', '-0', 'null', '"text"', 'true', 'false', '', ' ', '{', '}', '{}x', 'not json', '[{"alg":"HS256"}]', '{"a":1,}', '{"a":1}{"b":2}', "{'a':1}", '{"a":01}', '{"a":"\u0000"}'];

export function namedTricks(context: SigningContext): Trick[] {
  const { algorithm, key, refusedAlgorithm } = context;
  const alg: Member = ['alg', json(algorithm)];
  const signer = { algorithm, key };
  const tricks: Trick[] = [];
  const add = (name: string, recipe: (now: number) => TokenRecipe): void => {
    tricks.push({ name, make: (now) => forgeToken(recipe(now), now) });
  };
  /** A token of the scenario with `header` and `claims` members added (after the usual ones: a repeated name wins). */
  const token = (name: string, header: Member[] = [], claims: Member[] = [], rest: Partial<TokenRecipe> = {}): void =>
    add(name, (now) => ({ header: { json: [alg, ...context.header, ...header] }, payload: { json: [...context.claims(now), ...claims] }, signer, ...rest }));
  const withHeader = (name: string, header: Member[], rest: Partial<TokenRecipe> = {}): void =>
    add(name, (now) => ({ header: { json: header }, payload: { json: context.claims(now) }, signer, ...rest }));
  const withPayload = (name: string, payload: PartRecipe, rest: Partial<TokenRecipe> = {}): void =>
    add(name, () => ({ header: { json: [alg, ...context.header] }, payload, signer, ...rest }));

  token('valid');
  token('valid, typ JWT', [['typ', '"JWT"']]);

  // alg: none in its spellings, empty, not a string, not accepted, repeated.
  for (const odd of ['none', 'None', 'NONE', 'nOnE', '', ' ', algorithm.toLowerCase(), `${algorithm} `, `${algorithm}\u0000`, 'HS1', 'RS1', 'HS256', 'RS256', 'PS256', 'ES256', 'ES256K', 'EdDSA', 'Ed25519', 'Ed448', 'ES512']) {
    if (odd === algorithm) continue;
    withHeader(`alg ${json(odd)}, signed`, [['alg', json(odd)], ...context.header]);
    withHeader(`alg ${json(odd)}, no signature`, [['alg', json(odd)], ...context.header], { signer: undefined });
  }
  for (const odd of ['256', 'null', 'true', '["' + algorithm + '"]', '{}', '{"alg":"' + algorithm + '"}']) withHeader(`alg ${odd}`, [['alg', odd], ...context.header]);
  withHeader('no alg', [...context.header]);
  withHeader('alg none, then the right alg (the last wins)', [['alg', '"none"'], alg, ...context.header]);
  withHeader('the right alg, then none (the last wins)', [alg, ['alg', '"none"'], ...context.header]);
  withHeader('the right alg, then one not accepted', [alg, ['alg', json(refusedAlgorithm.algorithm)], ...context.header]);
  withHeader('the alg twice', [alg, alg, ...context.header]);
  add(`signed as ${refusedAlgorithm.algorithm}, not accepted here`, (now) => ({ header: { json: [['alg', json(refusedAlgorithm.algorithm)], ...context.header] }, payload: { json: context.claims(now) }, signer: refusedAlgorithm }));

  // Prototype names: JSON.parse makes them own members, which must not become anything else.
  withHeader('alg only inside __proto__', [['__proto__', `{"alg":${json(algorithm)}}`], ...context.header]);
  token('header __proto__ with crit', [['__proto__', '{"crit":["x-ext"],"x-ext":1}']]);
  token('header __proto__ null', [['__proto__', 'null']]);
  token('header constructor and toString', [['constructor', '{"prototype":{"alg":"none"}}'], ['toString', '1']]);
  token('kid __proto__', [['kid', '"__proto__"']]);
  // svcgate reads a header of at most 512 characters once and keeps it; a longer one is read each time.
  token('a header of 600 characters', [['x-pad', json('h'.repeat(440))]]);
  token('a header of 600 characters, alg none last', [['x-pad', json('h'.repeat(440))], ['alg', '"none"']]);

  // crit (RFC 7515, 4.1.11) and b64 (RFC 7797): jose knows b64 only, and refuses b64:false in a JWT.
  const crit: [string, Member[]][] = [
    ['crit unknown, member present', [['crit', '["x-ext"]'], ['x-ext', '1']]],
    ['crit unknown, member absent', [['crit', '["x-ext"]']]],
    ['crit empty', [['crit', '[]']]],
    ['crit b64, b64 true', [['crit', '["b64"]'], ['b64', 'true']]],
    ['crit b64, b64 false', [['crit', '["b64"]'], ['b64', 'false']]],
    ['crit b64, b64 "false"', [['crit', '["b64"]'], ['b64', '"false"']]],
    ['crit b64, b64 0', [['crit', '["b64"]'], ['b64', '0']]],
    ['crit b64, b64 null', [['crit', '["b64"]'], ['b64', 'null']]],
    ['crit b64, no b64', [['crit', '["b64"]']]],
    ['crit b64 twice, b64 true', [['crit', '["b64","b64"]'], ['b64', 'true']]],
    ['crit b64 and unknown', [['crit', '["b64","x-ext"]'], ['b64', 'true'], ['x-ext', '1']]],
    ['crit a string', [['crit', '"b64"'], ['b64', 'true']]],
    ['crit an object', [['crit', '{"0":"b64"}'], ['b64', 'true']]],
    ['crit null', [['crit', 'null']]],
    ['crit [1]', [['crit', '[1]']]],
    ['crit [""]', [['crit', '[""]']]],
    ['crit [null]', [['crit', '[null]']]],
    ['crit __proto__', [['crit', '["__proto__"]']]],
    ['crit alg', [['crit', '["alg"]']]],
    ['crit exp', [['crit', '["exp"]']]],
    ['crit true', [['crit', 'true']]],
    ['b64 false without crit', [['b64', 'false']]],
    ['b64 true without crit', [['b64', 'true']]],
    ['crit b64 then repeated without b64', [['crit', '["b64"]'], ['b64', 'false'], ['crit', '["x-ext"]']]],
  ];
  for (const [name, members] of crit) token(name, members);
  add('crit b64, b64 false, payload unencoded', () => ({ header: { json: [alg, ...context.header, ['crit', '["b64"]'], ['b64', 'false']] }, payload: { json: 'plain-text-payload' }, signer }));
  add('crit b64, b64 false, payload unencoded, bad signature', () => ({ header: { json: [alg, ...context.header, ['crit', '["b64"]'], ['b64', 'false']] }, payload: { json: 'plain' }, signer, signature: 'flip-char' }));

  // Repeated claims: the last one wins in JSON.parse.
  token('exp past, then future', [], [['exp', { sinceNow: -600 }], ['exp', { sinceNow: 600 }]]);
  add('exp future, then past', (now) => ({ header: { json: [alg, ...context.header] }, payload: { json: [['exp', { sinceNow: 600 }], ...context.claims(now), ['exp', { sinceNow: -600 }]] }, signer }));
  token('iss of another issuer last', [], [['iss', '"https://other.example"']]);
  token('aud twice, the last of another API', [], [['aud', '"api://other"']]);
  add('claims repeated as a whole', (now) => ({ header: { json: [alg, ...context.header] }, payload: { json: [...context.claims(now), ...context.claims(now)] }, signer }));

  // Prototype names in the claims.
  add('exp only inside __proto__', (now) => ({
    header: { json: [alg, ...context.header] },
    payload: { json: [...context.claims(now).filter(([name]) => name !== 'exp'), ['__proto__', `{"exp":${now + 600}}`]] },
    signer,
  }));
  token('claims __proto__ with another iss', [], [['__proto__', '{"iss":"https://other.example","admin":true}']]);
  token('claims __proto__ null', [], [['__proto__', 'null']]);
  token('claims constructor, toString, hasOwnProperty', [], [['constructor', '{"prototype":{}}'], ['toString', '"x"'], ['hasOwnProperty', '1']]);
  token('claim names that are empty or odd', [], [['', '1'], [' ', '2'], ['a.b', '3'], ['\u0000', '4'], ['\ud800', '5']]);
  token('claims with unicode and escapes', [], [['name', '"\\u00e9\\ud83d\\ude00\\ud800"'], ['raw', json('é😀\u2028')]]);
  token('claim -0 and big numbers', [], [['zero', '-0'], ['big', '1e400'], ['small', '-1e400'], ['long', '12345678901234567890123']]);
  token('exp 1e400 (Infinity)', [], [['exp', '1e400']]);
  token('exp 10 with 400 zeros', [], [['exp', `1${'0'.repeat(400)}`]]);
  token('nested arrays 2,000 deep', [], [['deep', `${'['.repeat(2000)}${']'.repeat(2000)}`]]);
  token('nested arrays 30,000 deep', [], [['deep', `${'['.repeat(30_000)}${']'.repeat(30_000)}`]]);
  token('300 claims', [], Array.from({ length: 300 }, (_, index) => [`c${index}`, String(index)] as const));
  token('cnf.jkt (a DPoP-bound token)', [], [['cnf', '{"jkt":"0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}']]);
  token('cnf without jkt', [], [['cnf', '{"x5t#S256":"abc"}']]);

  // Bytes: a byte-order mark, whitespace, invalid UTF-8 (jose's TextDecoder replaces it, and drops a BOM).
  for (const twist of BYTE_TWISTS_ALL) {
    add(`header bytes: ${twist}`, (now) => ({ header: { json: [alg, ...context.header, ['x-h', '"value"']], bytes: twist }, payload: { json: context.claims(now) }, signer }));
    add(`payload bytes: ${twist}`, (now) => ({ header: { json: [alg, ...context.header] }, payload: { json: [['x-c', '"value"'], ...context.claims(now)], bytes: twist }, signer }));
  }

  // base64url written otherwise, signed as written (only the decoding can tell), or signed before.
  for (const encoding of PART_ENCODINGS) {
    for (const at of [0, 0.5, 0.999]) {
      add(`header ${encoding} at ${at}`, (now) => ({ header: { json: [alg, ...context.header], encoding, at }, payload: { json: context.claims(now) }, signer }));
      add(`payload ${encoding} at ${at}`, (now) => ({ header: { json: [alg, ...context.header] }, payload: { json: context.claims(now), encoding, at }, signer }));
    }
  }
  for (const twist of SIGNATURE_TWISTS) {
    for (const at of [0, 0.5, 0.999]) add(`signature ${twist} at ${at}`, (now) => ({ header: { json: [alg, ...context.header], at }, payload: { json: context.claims(now) }, signer, signature: twist }));
  }
  add('signature of another token', (now) => {
    const other = forgeToken({ header: { json: [alg, ...context.header] }, payload: { json: [...context.claims(now), ['admin', 'true']] }, signer }, now);
    return { header: { json: [alg, ...context.header] }, payload: { json: context.claims(now) }, signatureText: other.split('.')[2]! };
  });
  add('signature of the same claims under another header', (now) => {
    const other = forgeToken({ header: { json: [alg, ...context.header, ['typ', '"JWT"']] }, payload: { json: context.claims(now) }, signer }, now);
    return { header: { json: [alg, ...context.header] }, payload: { json: context.claims(now) }, signatureText: other.split('.')[2]! };
  });
  add('signature with 40 "~" after it', (now) => {
    const signature = forgeToken({ header: { json: [alg, ...context.header] }, payload: { json: context.claims(now) }, signer }, now).split('.')[2]!;
    return { header: { json: [alg, ...context.header] }, payload: { json: context.claims(now) }, signatureText: `${signature}${'~'.repeat(40)}` };
  });

  // Headers and payloads that are not JSON objects, validly signed.
  for (const text of NOT_OBJECTS) {
    add(`header ${json(text)}`, (now) => ({ header: { json: text }, payload: { json: context.claims(now) }, signer }));
    withPayload(`payload ${json(text)}`, { json: text });
  }
  withPayload('payload not JSON, bad signature', { json: 'not json' }, { signature: 'flip-char' });
  add('expired, bad signature', (now) => ({ header: { json: [alg, ...context.header] }, payload: { json: [...context.claims(now), ['exp', { sinceNow: -600 }]] }, signer, signature: 'flip-char' }));
  add('header not JSON, alg not accepted elsewhere', () => ({ header: { json: '{"alg":"none"' }, payload: { json: '{}' }, signer }));
  withHeader('crit unknown and alg none', [['alg', '"none"'], ['crit', '["x-ext"]'], ['x-ext', '1']]);
  withHeader('crit unknown and no alg', [['crit', '["x-ext"]'], ['x-ext', '1']]);
  withHeader('b64 "no" under crit and alg none', [['alg', '"none"'], ['crit', '["b64"]'], ['b64', '"no"']]);
  withPayload('payload an array, expired-looking', { json: `[{"exp":1}]` });

  // Number of parts, empty parts.
  for (const text of ['', '.', '..', '...', '....', 'a.b.c', 'a.b', 'a', '.a.', 'a..', '..a']) tricks.push({ name: `token ${json(text)}`, make: () => text });
  tricks.push({ name: '100 dots after a valid token', make: (now) => `${forgeToken({ header: { json: [alg, ...context.header] }, payload: { json: context.claims(now) }, signer }, now)}${'.'.repeat(100)}` });
  add('empty header part', (now) => ({ header: { json: '', encoding: 'empty' }, payload: { json: context.claims(now) }, signer }));
  add('empty payload part', () => ({ header: { json: [alg, ...context.header] }, payload: { json: '', encoding: 'empty' }, signer }));

  // Length: the Authorization header is bounded (maxHeaderBytes) before anything is read.
  token('a claim of 1,000 characters', [], [['pad', json('x'.repeat(1000))]]);
  token('a claim of 20,000 characters', [], [['pad', json('x'.repeat(20_000))]]);
  // Node's base64url decoder skips '~', so '~'s after the signature change nothing but the length.
  for (const extra of [0, 1]) {
    tricks.push({
      name: `Authorization header of maxHeaderBytes ${extra === 0 ? 'exactly' : '+ 1'}`,
      make: (now) => {
        const valid = forgeToken({ header: { json: [alg, ...context.header] }, payload: { json: context.claims(now) }, signer }, now);
        return `${valid}${'~'.repeat(Math.max(0, context.maxHeaderBytes - 'Bearer '.length - valid.length + extra))}`;
      },
    });
  }
  return tricks;
}

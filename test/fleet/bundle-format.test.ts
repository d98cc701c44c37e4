import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readBundle, verificationKey, writeBundle, type SigningAlgorithm } from '../../src/fleet';
import { compareUtf8 } from '../../src/fleet/bundle/canonical-json';
import { readTarGz, writeTarGz } from '../../src/fleet/bundle/tar-gz';
import { ConfigError } from '../../src/policy';
import { policyWasmPath } from '../../src/policy/evaluate/policy-wasm-path';
import { refusal } from '../helpers/bundle-refusal';
import { exampleBundle, exampleData } from '../helpers/bundles';
import { OPA, opaDecision, startOpa } from '../helpers/opa-server';
import { tarEntry } from '../helpers/tar-entries';

const ROOT = join(__dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'svcgate-bundle-format-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HS_SECRET = 'a-bundle-signing-secret-of-32-bytes!';
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = (key: { export: (options: { type: 'pkcs8' | 'spki'; format: 'pem' }) => string | Buffer }, type: 'pkcs8' | 'spki') => key.export({ type, format: 'pem' }).toString();
const KEYS: Record<'HS256' | 'RS256' | 'ES256', { signing: string; verifying: string }> = {
  HS256: { signing: HS_SECRET, verifying: HS_SECRET },
  RS256: { signing: pem(rsa.privateKey, 'pkcs8'), verifying: pem(rsa.publicKey, 'spki') },
  ES256: { signing: pem(ec.privateKey, 'pkcs8'), verifying: pem(ec.publicKey, 'spki') },
};

function verifier(algorithm: SigningAlgorithm, key: string, keyId?: string) {
  return { verification: verificationKey({ key, algorithm, keyId }, '<test>', '$') };
}

/** Rewrites a bundle's files as an attacker with write access to the bundle server would. */
async function tamper(bundle: Buffer, change: (files: Map<string, Buffer>) => void): Promise<Buffer> {
  const files = await readTarGz(bundle);
  change(files);
  return writeTarGz([...files].map(([name, bytes]) => ({ name, bytes })));
}

/** `opa build` of a folder of `files`, signed with the ES256 key: a bundle as OPA's own tools build and sign it. */
function opaBuild(name: string, files: Record<string, string | Buffer>, revision: string): Buffer {
  const source = join(dir, name);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(dirname(join(source, file)), { recursive: true });
    writeFileSync(join(source, file), content);
  }
  const key = join(dir, `${name}-signing.pem`);
  writeFileSync(key, KEYS.ES256.signing);
  const out = join(dir, `${name}.tar.gz`);
  execFileSync(OPA, ['build', '-b', source, '-o', out, '--revision', revision, '--signing-key', key, '--signing-alg', 'ES256']);
  return readFileSync(out);
}

describe('writeBundle and readBundle', () => {
  test('round trip: the data, the policy and the revision come back as written; the same input gives the same bytes', async () => {
    const data = exampleData();
    // The build time is part of the input: the writer stamps the time of the call otherwise.
    const builtAt = new Date('2026-11-26T10:00:00.000Z');
    const first = await exampleBundle({ revision: 'r1', builtAt });
    const bundle = await readBundle(first);
    expect(bundle.data).toEqual(data);
    expect(bundle.manifest).toEqual({ revision: 'r1', roots: ['svcgate'], metadata: { svcgate: { wasm: { entrypoint: 'svcgate/authz/decision', module: '/policy.wasm' }, builtAt: builtAt.toISOString() } } });
    expect(Buffer.from(bundle.wasm!).equals(readFileSync(policyWasmPath()))).toBe(true);
    expect(bundle.files.sort()).toEqual(['.manifest', 'data.json', 'policies/authz.rego', 'policy.wasm']);
    expect(bundle.signed).toBe(false);
    expect((await exampleBundle({ revision: 'r1', builtAt })).equals(first)).toBe(true);
  });

  test.each(['HS256', 'RS256', 'ES256'] as const)('%s: a signed bundle verifies with its key, and every alteration is refused', async (algorithm) => {
    const keys = KEYS[algorithm];
    const signed = await exampleBundle({ revision: 's1', signing: { key: keys.signing, algorithm, keyId: 'k1' } });
    const options = verifier(algorithm, keys.verifying, 'k1');
    expect((await readBundle(signed, options)).signed).toBe(true);
    // The signed hash is over the canonical JSON: the same data written another way still verifies.
    const reformatted = await tamper(signed, (files) => {
      const document = JSON.parse(files.get('data.json')!.toString()) as { svcgate: { acl: Record<string, unknown> } };
      const reordered = Object.fromEntries(Object.entries(document.svcgate.acl).reverse());
      files.set('data.json', Buffer.from(JSON.stringify({ svcgate: { acl: reordered } }, null, 2)));
    });
    expect((await readBundle(reformatted, options)).data).toEqual(exampleData());

    const altered = await tamper(signed, (files) => {
      const document = JSON.parse(files.get('data.json')!.toString()) as { svcgate: { acl: { roles: Record<string, unknown> } } };
      document.svcgate.acl.roles.intruder = { extends: ['admin'] };
      files.set('data.json', Buffer.from(JSON.stringify(document)));
    });
    expect((await refusal(readBundle(altered, options))).message).toMatch(/"data.json" does not match its signed hash/);
    const added = await tamper(signed, (files) => files.set('extra/data.json', Buffer.from('{}')));
    expect((await refusal(readBundle(added, options))).message).toMatch(/holds files its signature does not list: "extra\/data.json"/);
    const removed = await tamper(signed, (files) => files.delete('policies/authz.rego'));
    expect((await refusal(readBundle(removed, options))).message).toMatch(/lists "policies\/authz.rego", which the bundle does not hold/);
    const unsigned = await tamper(signed, (files) => files.delete('.signatures.json'));
    expect((await refusal(readBundle(unsigned, options))).code).toBe('ERR_SVCGATE_BUNDLE_SIGNATURE');
    const otherKey = { HS256: () => 'another-secret-that-is-32-bytes-long', RS256: () => pem(generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey, 'spki'), ES256: () => pem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey, 'spki') }[algorithm]();
    expect((await refusal(readBundle(signed, verifier(algorithm, otherKey, 'k1')))).message).toMatch(/does not verify/);
    expect((await refusal(readBundle(signed, verifier(algorithm, keys.verifying, 'k2')))).message).toMatch(/signed with the key "k1", not "k2"/);
  });

  test('a signature made with another key or algorithm, or alg none, is refused', async () => {
    const bundle = await exampleBundle({ revision: 'x', signing: { key: KEYS.RS256.signing, algorithm: 'RS256' } });
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect((await refusal(readBundle(bundle, verifier('RS256', pem(other.publicKey, 'spki'))))).message).toMatch(/does not verify with the configured RS256 key/);
    const hmac = await exampleBundle({ revision: 'x', signing: { key: HS_SECRET, algorithm: 'HS256' } });
    expect((await refusal(readBundle(hmac, verifier('RS256', KEYS.RS256.verifying)))).message).toMatch(/does not verify/);
    const none = await tamper(bundle, (files) => {
      const [, payload] = (JSON.parse(files.get('.signatures.json')!.toString()) as { signatures: string[] }).signatures[0]!.split('.');
      const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
      files.set('.signatures.json', Buffer.from(JSON.stringify({ signatures: [`${header}.${payload}.`] })));
    });
    expect((await refusal(readBundle(none, verifier('RS256', KEYS.RS256.verifying)))).code).toBe('ERR_SVCGATE_BUNDLE_SIGNATURE');
    expect((await refusal(readBundle(bundle))).message).toMatch(/signed but no verification key is configured/);
  });

  test('a verification key that cannot verify the algorithm is a start-up error', () => {
    expect(() => verificationKey({ key: 'short', algorithm: 'HS256' }, '<opts>', '$.verification')).toThrow(ConfigError);
    expect(() => verificationKey({ key: 'not a pem', algorithm: 'RS256' }, '<opts>', '$.verification')).toThrow(/\$\.verification\.key/);
    expect(() => verificationKey({ key: KEYS.RS256.verifying, algorithm: 'none' as SigningAlgorithm }, '<opts>', '$.verification')).toThrow(/not a bundle signing algorithm/);
  });

  test('archives are read within bounds: size, names, entry types, duplicates', async () => {
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024));
    expect((await refusal(readBundle(bomb, { maxBytes: 1024 * 1024 }))).message).toMatch(/larger than 1048576 bytes once decompressed/);
    expect((await refusal(readBundle(Buffer.from('not gzip')))).code).toBe('ERR_SVCGATE_BUNDLE_ARCHIVE');
    const end = Buffer.alloc(1024);
    expect((await refusal(readBundle(gzipSync(Buffer.concat([tarEntry('../etc/data.json', '0', Buffer.from('{}')), end]))))).message).toMatch(/not a plain relative path/);
    expect((await refusal(readBundle(gzipSync(Buffer.concat([tarEntry('data.json', '2'), end]))))).message).toMatch(/special entry/);
    expect((await refusal(readBundle(gzipSync(Buffer.concat([tarEntry('a.rego', '0'), tarEntry('/a.rego', '0'), end]))))).message).toMatch(/holds "a.rego" twice/);
    const truncated = Buffer.concat([tarEntry('a.rego', '0', Buffer.alloc(2000))]).subarray(0, 1024);
    expect((await refusal(readBundle(gzipSync(truncated)))).message).toMatch(/truncated/);
    const badSum = tarEntry('a.rego', '0');
    badSum[0] = 'b'.charCodeAt(0);
    expect((await refusal(readBundle(gzipSync(Buffer.concat([badSum, end]))))).message).toMatch(/checksum/);
  });

  test('data that is not this version of the data document, and foreign files or roots, are refused', async () => {
    const old = await tamper(await exampleBundle({ revision: 'x' }), (files) => {
      const document = JSON.parse(files.get('data.json')!.toString()) as { svcgate: { acl: { schema_version: number } } };
      document.svcgate.acl.schema_version = 4;
      files.set('data.json', Buffer.from(JSON.stringify(document)));
    });
    expect((await refusal(readBundle(old))).message).toMatch(/schema_version must be 6 \(or 5, before list operations\)/);
    // Version 5 is version 6 without list operations: a bundle built before them still activates.
    const asVersion = (version: number, list?: unknown) => (files: Map<string, Buffer>) => {
      const document = JSON.parse(files.get('data.json')!.toString()) as { svcgate: { acl: { schema_version: number; operations: Record<string, { list?: unknown }> } } };
      document.svcgate.acl.schema_version = version;
      if (list !== undefined) document.svcgate.acl.operations['GET /users']!.list = list;
      files.set('data.json', Buffer.from(JSON.stringify(document)));
    };
    await expect(readBundle(await tamper(await exampleBundle({ revision: 'x' }), asVersion(5)))).resolves.toBeDefined();
    const listIn5 = await tamper(await exampleBundle({ revision: 'x' }), asVersion(5, { item: 'GET /users/{userId}', params: {} }));
    expect((await refusal(readBundle(listIn5))).message).toMatch(/operations\["GET \/users"\]\.list, a list operation needs schema_version 6/);
    const garbage = await tamper(await exampleBundle({ revision: 'x' }), (files) => files.set('data.json', Buffer.from('{"svcgate":{"acl":{"operations":[]}}}')));
    expect((await refusal(readBundle(garbage))).code).toBe('ERR_SVCGATE_BUNDLE_DATA');
    const badOperation = await tamper(await exampleBundle({ revision: 'x' }), (files) => {
      const document = JSON.parse(files.get('data.json')!.toString()) as { svcgate: { acl: { operations: Record<string, { action: string }> } } };
      document.svcgate.acl.operations['GET /users/{userId}']!.action = 'erase';
      files.set('data.json', Buffer.from(JSON.stringify(document)));
    });
    expect((await refusal(readBundle(badOperation))).message).toMatch(/at operations\["GET \/users\/\{userId\}"\]\.action, /);
    type Table = { grant_offsets: Record<string, number>; grant_sets: Record<string, unknown>; operations: Record<string, { grants: string }> };
    const withTable = async (change: (acl: Table) => void) =>
      tamper(await exampleBundle({ revision: 'x' }), (files) => {
        const document = JSON.parse(files.get('data.json')!.toString()) as { svcgate: { acl: Table } };
        change(document.svcgate.acl);
        files.set('data.json', Buffer.from(JSON.stringify(document)));
      });
    const shortRow = await withTable((acl) => (acl.operations['GET /users/{userId}']!.grants = 'a'));
    expect((await refusal(readBundle(shortRow))).message).toMatch(/at operations\["GET \/users\/\{userId\}"\]\.grants, a row must be 3 characters \(grant_width for each role of grant_offsets\), not 1/);
    const offsetsError = /at grant_offsets, grant_offsets must start the roles' cells at 0, 1, 2, \.\.\. \(grant_width apart\), each once/;
    const sameCell = await withTable((acl) => (acl.grant_offsets = Object.fromEntries(Object.keys(acl.grant_offsets).map((role) => [role, 0]))));
    expect((await refusal(readBundle(sameCell))).message).toMatch(offsetsError);
    const pastTheRow = await withTable((acl) => (acl.grant_offsets = Object.fromEntries(Object.keys(acl.grant_offsets).map((role, column) => [role, column * 2]))));
    expect((await refusal(readBundle(pastTheRow))).message).toMatch(offsetsError);
    const dashCell = await withTable((acl) => (acl.grant_sets['-'] = { any: ['*'] }));
    expect((await refusal(readBundle(dashCell))).message).toMatch(/at grant_sets\["-"\], a cell must be 1 characters \(grant_width\), none of them -/);
    const foreign = await tamper(await exampleBundle({ revision: 'x' }), (files) => files.set('run.sh', Buffer.from('#!/bin/sh')));
    expect((await refusal(readBundle(foreign))).message).toMatch(/holds "run.sh"/);
    const roots = await tamper(await exampleBundle({ revision: 'x' }), (files) => files.set('.manifest', Buffer.from('{"revision":"x","roots":["other"]}')));
    expect((await refusal(readBundle(roots))).code).toBe('ERR_SVCGATE_BUNDLE_MANIFEST');
    const entrypoint = await tamper(await exampleBundle({ revision: 'x' }), (files) => {
      const manifest = JSON.parse(files.get('.manifest')!.toString()) as { metadata: { svcgate: { wasm: { entrypoint: string } } } };
      expect(manifest.metadata.svcgate.wasm).toEqual({ entrypoint: 'svcgate/authz/decision', module: '/policy.wasm' });
      manifest.metadata.svcgate.wasm.entrypoint = 'svcgate/authz/allow';
      files.set('.manifest', Buffer.from(JSON.stringify(manifest)));
    });
    expect((await refusal(readBundle(entrypoint))).message).toMatch(/names the Wasm entrypoint .*svcgate\/authz\/allow/);
  });

  test('keys are ordered by their UTF-8 bytes, as Go orders them', () => {
    const keys = ['\u{1F600}', '\uFF01', 'b', 'a', '\u00e9'];
    expect([...keys].sort(compareUtf8)).toEqual([...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
  });
});

describe('interoperability with the real opa', () => {
  test('a bundle built and signed by `opa build` is read and verified', async () => {
    const built = opaBuild('opa-build', { 'svcgate/acl/data.json': JSON.stringify(exampleData(), null, 2), 'authz.rego': readFileSync(join(ROOT, 'policies/authz.rego')) }, 'built-by-opa');
    const bundle = await readBundle(built, verifier('ES256', KEYS.ES256.verifying));
    expect(bundle.manifest.revision).toBe('built-by-opa');
    expect(bundle.data).toEqual(exampleData());
    expect(bundle.wasm).toBeUndefined();
  });

  test('a bundle `opa build` signed verifies when its data holds numbers as written, HTML characters and other escapes', async () => {
    // OPA writes `<` as \u003c and keeps 2.50 and 1e3 as written, and hashes numbers as written
    // (json.Number): its data.json is not in the canonical form byte for byte, and the canonical
    // form must keep the numbers' text.
    const other = '{"price": 2.50, "big": 1e3, "exp": 1E+2, "neg": -0, "huge": 12345678901234567890, "html": "<a href=\\"x\\">&amp;</a>", "line": "\\u2028", "ctl": "\\u0001\\t", "\\u00e9": 1, "\\ud83d\\ude00": 2, "\\uff01": 3, "dup": 1, "dup": 2}';
    const built = opaBuild('opa-build-escapes', { 'svcgate/acl/data.json': JSON.stringify(exampleData(), null, 2), 'other/data.json': other }, 'escapes');
    const bundle = await readBundle(built, verifier('ES256', KEYS.ES256.verifying));
    expect(bundle.manifest.revision).toBe('escapes');
    expect(bundle.data).toEqual(exampleData());
  });

  test('a bundle `opa build` signed with a data.json over 8 MiB verifies; over verification.maxCanonicalBytes it is refused, and not called altered', async () => {
    // opa build merges every data.json into one, written in its own form (`<` as \u003c), never
    // the canonical one it signs: each takes the canonical path, which stopped at 8 MiB.
    const items = Array.from({ length: 150_000 }, (_, id) => ({ id, name: `item <${id}>`, price: 2.5 }));
    const built = opaBuild('opa-build-large', { 'svcgate/acl/data.json': JSON.stringify(exampleData()), 'other/data.json': JSON.stringify({ items }) }, 'large');
    const size = (await readTarGz(built)).get('data.json')!.byteLength;
    expect(size).toBeGreaterThan(8 * 1024 * 1024);
    const bundle = await readBundle(built, verifier('ES256', KEYS.ES256.verifying));
    expect(bundle.manifest.revision).toBe('large');
    expect(bundle.data).toEqual(exampleData());

    const capped = await refusal(readBundle(built, { verification: verificationKey({ key: KEYS.ES256.verifying, algorithm: 'ES256', maxCanonicalBytes: 8 * 1024 * 1024 }, '<test>', '$') }));
    expect(capped).toMatchObject({
      code: 'ERR_SVCGATE_BUNDLE_SIGNATURE',
      message: `"data.json" is not byte for byte the signed file, and at ${size} bytes it is over the 8388608 bytes compared in OPA's canonical form (verification.maxCanonicalBytes), so it was not read further; a bundle \`opa build\` wrote with this much data needs a larger maxCanonicalBytes`,
    });
  });

  test.each(['HS256', 'RS256', 'ES256'] as const)('opa run --bundle --verification-key loads a bundle svcgate signed with %s, and refuses it altered', async (algorithm) => {
    const keys = KEYS[algorithm];
    const file = join(dir, `signed-${algorithm}.tar.gz`);
    const signed = await exampleBundle({ revision: `opa-${algorithm}`, signing: { key: keys.signing, algorithm, keyId: 'k1' } });
    writeFileSync(file, signed);
    const keyFile = join(dir, `verify-${algorithm}`);
    writeFileSync(keyFile, keys.verifying);
    const args = ['--verification-key', keyFile, '--verification-key-id', 'k1', '--signing-alg', algorithm];
    const opa = await startOpa(['--bundle', file, ...args]);
    try {
      const answer = await opaDecision(opa.url, { operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['1'] }, claims: { 'path:userId': ['1'] } });
      expect(answer.result).toMatchObject({ allow: true, possession: 'own', role: 'user' });
    } finally {
      await opa.stop();
    }
    const altered = join(dir, `altered-${algorithm}.tar.gz`);
    writeFileSync(
      altered,
      await tamper(signed, (files) => files.set('data.json', Buffer.from(files.get('data.json')!.toString().replace('"read:own"', '"read:any"').replace('"own":', '"any":')))),
    );
    await expect(startOpa(['--bundle', altered, ...args], { timeoutMs: 5000 })).rejects.toThrow(/digest mismatch/);
  });
});

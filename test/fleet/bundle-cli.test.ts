import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBundle, verificationKey } from '../../src/fleet';
import { opaDecision, startOpa } from '../helpers/opa-server';
import { svcgate } from '../helpers/svcgate-cli';

// `svcgate bundle` as users run it in CI: the built bin, then the bundle served by a real OPA
// that verifies its signature, and read back by svcgate's reader.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const API = ['--openapi', join(EXAMPLE, 'openapi.yaml'), '--acl', join(EXAMPLE, 'permissions.yaml')];
const dir = mkdtempSync(join(tmpdir(), 'svcgate-bundle-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('svcgate bundle writes a signed bundle that opa run --verification-key serves and svcgate reads', async () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyFile = join(dir, 'signing.pem');
  const publicFile = join(dir, 'public.pem');
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(publicFile, publicKey.export({ type: 'spki', format: 'pem' }));
  const out = join(dir, 'bundle.tar.gz');
  const { code, stdout } = await svcgate('bundle', ...API, '--revision', 'ci-42', '--signing-key', keyFile, '--signing-alg', 'ES256', '--signing-key-id', 'ci', '--out', out);
  expect(code).toBe(0);
  expect(stdout).toMatch(/^wrote .*bundle\.tar\.gz: revision ci-42, 9 operations, \d+ bytes, signed ES256\n$/);

  const bundle = await readBundle(readFileSync(out), { verification: verificationKey({ key: readFileSync(publicFile, 'utf8'), algorithm: 'ES256', keyId: 'ci' }, '<test>', '$') });
  expect(bundle.manifest.revision).toBe('ci-42');
  expect(bundle.files).toContain('svcgate/authz/policy.rego');

  const before = Date.now();
  const opa = await startOpa(['--bundle', out, '--verification-key', publicFile, '--verification-key-id', 'ci', '--signing-alg', 'ES256']);
  try {
    // The build time is in the signed manifest's metadata, which OPA keeps as it is (rollback protection, SPEC 9.3).
    const bundles = (await (await fetch(`${opa.url}/v1/data/system/bundles`)).json()) as { result: Record<string, { manifest: { metadata?: { svcgate?: { builtAt?: string } } } }> };
    const builtAt = Object.values(bundles.result)[0]?.manifest.metadata?.svcgate?.builtAt;
    expect(builtAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(builtAt!)).toBeLessThanOrEqual(before);
    const owner = await opaDecision(opa.url, { operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['3'] }, claims: { 'path:userId': ['3'] } });
    expect(owner.result).toMatchObject({ allow: true, role: 'user' });
    const other = await opaDecision(opa.url, { operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['2'] }, claims: { 'path:userId': ['3'] } });
    expect(other.result).toMatchObject({ allow: false });
  } finally {
    await opa.stop();
  }
});

test('--anonymous-default none builds a bundle whose data grants callers without a role nothing (the bundle svcAcl takes), from any document', async () => {
  const acl = join(dir, 'no-anonymous.json');
  writeFileSync(acl, JSON.stringify({ admin: {} }));
  const dataOf = async (...options: string[]) => {
    const out = join(dir, `anonymous${options.join('-')}.tar.gz`);
    expect((await svcgate('bundle', '--openapi', join(EXAMPLE, 'openapi.yaml'), '--acl', acl, ...options, '--out', out)).code).toBe(0);
    return (await readBundle(readFileSync(out))).data;
  };
  expect((await dataOf()).anonymous_default).toBe(true);
  const none = await dataOf('--anonymous-default', 'none');
  expect(none.anonymous_default).toBe(false);
  expect(Object.keys(none.roles)).toContain('anonymous');
});

test('bad arguments are one line on stderr and exit code 2', async () => {
  expect(await svcgate('bundle', ...API)).toMatchObject({ code: 2, stderr: 'svcgate: --out <file.tar.gz> is required (svcgate bundle --help)\n' });
  expect(await svcgate('bundle', ...API, '--signing-alg', 'ES256', '--out', join(dir, 'x.tar.gz'))).toMatchObject({ code: 2, stderr: expect.stringMatching(/need --signing-key <file>/) });
  expect(await svcgate('bundle', ...API, '--signing-key', join(dir, 'none.pem'), '--signing-alg', 'none', '--out', join(dir, 'x.tar.gz'))).toMatchObject({ code: 2, stderr: expect.stringMatching(/--signing-alg must be one of RS256/) });
});

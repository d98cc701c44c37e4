// `make fleet`: a fleet you can watch, all on 127.0.0.1. It builds and signs a bundle of the
// users API with `svcgate bundle`, serves it with express.static, starts two replicas
// (replica.mjs) and an OPA sidecar that poll it, and prints curl lines. Then it takes read:own on
// users away from the user role, rebuilds and republishes the bundle, and shows every process
// switching revision. FLEET_KEEP=1 keeps everything running until Ctrl-C.
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sign } from '../demo-jwt.mjs';

const require = createRequire(import.meta.url);
const express = require('express');
const yaml = require('js-yaml');
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');
const CLI = join(ROOT, 'dist/cjs/cli/main.js');
const OPA = execFileSync('bash', [join(ROOT, 'scripts/install-opa.sh'), '--find'], { encoding: 'utf8' }).trim();
const work = mkdtempSync(join(tmpdir(), 'svcgate-fleet-'));
const children = [];
let stopping = false;

function stopAll() {
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
process.on('SIGINT', () => {
  stopAll();
  process.exit(0);
});

// CI signs the bundle with a private key; replicas and OPA hold the public one.
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
writeFileSync(join(work, 'signing.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
writeFileSync(join(work, 'verify.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
const site = join(work, 'site');
execFileSync('mkdir', ['-p', site]);

function buildBundle(permissions, revision) {
  const aclFile = join(work, `permissions-${revision}.yaml`);
  writeFileSync(aclFile, yaml.dump(permissions));
  const out = join(work, `${revision}.tar.gz`);
  const args = ['bundle', '--openapi', join(ROOT, 'examples/users-api/openapi.yaml'), '--acl', aclFile, '--scheme', 'bearerAuth', '--revision', revision, '--signing-key', join(work, 'signing.pem'), '--signing-alg', 'ES256', '--out', out];
  console.log(`$ svcgate ${args.join(' ').replaceAll(work, '$WORK')}`);
  process.stdout.write(execFileSync(process.execPath, [CLI, ...args], { encoding: 'utf8' }));
  // Published in one rename, as a deploy step would.
  renameSync(out, join(site, 'bundle.tar.gz'));
}

function start(command, args, env, ready) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const found = ready(output);
      if (found) resolve(found);
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => {
      if (!stopping) reject(new Error(`${args[0] ?? command} exited with ${code}: ${output}`));
    });
  });
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const permissions = yaml.load(readFileSync(join(ROOT, 'examples/users-api/permissions.yaml'), 'utf8'));
buildBundle(permissions, 'rev-1');

const app = express();
app.use(express.static(site));
const bundleServer = await new Promise((resolve) => {
  const server = app.listen(0, '127.0.0.1', () => resolve(server));
});
const bundleUrl = `http://127.0.0.1:${bundleServer.address().port}/bundle.tar.gz`;
console.log(`bundle server (express.static, ETags): ${bundleUrl}`);

const replicaEnv = { BUNDLE_URL: bundleUrl, VERIFICATION_KEY: join(work, 'verify.pem'), VERIFICATION_ALG: 'ES256', MIN_DELAY: '1', MAX_DELAY: '2' };
const replicaUrl = (output) => /listening (\S+)/.exec(output)?.[1];
const replicas = [];
for (const n of [1, 2]) replicas.push(await start(process.execPath, [join(HERE, 'replica.mjs')], { ...replicaEnv, PERSIST_DIR: join(work, `persist-${n}`) }, replicaUrl));

const opaConfig = join(work, 'opa.json');
writeFileSync(
  opaConfig,
  JSON.stringify({
    services: { site: { url: bundleUrl.replace(/\/bundle\.tar\.gz$/, '') } },
    bundles: { svcgate: { service: 'site', resource: 'bundle.tar.gz', polling: { min_delay_seconds: 1, max_delay_seconds: 2 }, signing: { keyid: 'ci' } } },
    keys: { ci: { algorithm: 'ES256', key: readFileSync(join(work, 'verify.pem'), 'utf8') } },
  }),
);
// A port free now: OPA reports the address it was given, so it is not given port 0.
const opaPort = await new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const opaUrl = `http://127.0.0.1:${opaPort}`;
start(OPA, ['run', '--server', '--addr', `127.0.0.1:${opaPort}`, '--log-level', 'error', '-c', opaConfig], {}, () => false).catch((error) => console.error(error.message));

async function revisions() {
  const of = async (url) => (await (await fetch(`${url}/fleet/status`)).json()).bundle.revision;
  const opaRevision = await fetch(`${opaUrl}/v1/data/system/bundles/svcgate/manifest/revision`)
    .then(async (answer) => (await answer.json()).result ?? null)
    .catch(() => null);
  return { 'replica 1': await of(replicas[0]), 'replica 2': await of(replicas[1]), opa: opaRevision };
}

async function untilAll(revision) {
  const started = Date.now();
  for (;;) {
    const now = await revisions();
    if (Object.values(now).every((value) => value === revision)) return Date.now() - started;
    await wait(100);
  }
}

await untilAll('rev-1');
const user = await sign({ sub: 'u1', role: 'user', userId: [1, 3, 5] });
const status = async (url) => (await fetch(`${url}/users/3`, { headers: { authorization: `Bearer ${user}` } })).status;
console.log(`\nreplicas: ${replicas.join(' and ')}, OPA sidecar: ${opaUrl}; every one runs revision rev-1:`);
for (const url of replicas) {
  console.log(`curl -i -H 'Authorization: Bearer ${user}' ${url}/api/v1/users/3    # ${await status(`${url}/api/v1`)}: the user reads its own user`);
  console.log(`curl -s ${url}/fleet/status    # the bundle's revision, last check, last error; ${url}/healthz is the readiness probe`);
}
console.log(`curl -s -X POST ${opaUrl}/v1/data/svcgate/authz/decision -d '{"input":{"operation":"GET /users/{userId}","role":"user","params":{"path:userId":["3"]},"claims":{"path:userId":["3"]}}}'`);

console.log('\nrewriting one permission: the user role loses read:own on /users/{userId}');
delete permissions.user['/users/{userId}']['read:own'];
buildBundle(permissions, 'rev-2');
const took = await untilAll('rev-2');
console.log(`every process switched to rev-2 within ${took} ms of the publish: ${JSON.stringify(await revisions())}`);
for (const url of replicas) console.log(`GET ${url}/api/v1/users/3 -> ${await status(`${url}/api/v1`)} (was 200)`);

if (process.env.FLEET_KEEP === '1') {
  console.log('\nFLEET_KEEP=1: running until Ctrl-C');
} else {
  stopAll();
  bundleServer.close();
}

// `make fleet`: a fleet you can watch, all on 127.0.0.1. It builds and signs a bundle of the
// users API with `svcgate bundle`, serves it with express.static, starts two replicas
// (replica.mjs) and an OPA sidecar that poll it, and prints curl lines. A candidate revision that
// takes read:own on users away from the user role is served beside it: the replicas shadow it
// (they decide each request with it too, after answering from the active one), and the run prints
// where it would answer otherwise. Then it publishes the candidate as the active bundle and shows
// every process switching revision. FLEET_KEEP=1 keeps everything running until Ctrl-C.
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

/** Builds and signs a bundle of `permissions`, published as `published` on the bundle server. */
function buildBundle(permissions, revision, published) {
  const aclFile = join(work, `permissions-${revision}.yaml`);
  writeFileSync(aclFile, yaml.dump(permissions));
  const out = join(work, `${revision}.tar.gz`);
  const args = ['bundle', '--openapi', join(ROOT, 'examples/users-api/openapi.yaml'), '--acl', aclFile, '--scheme', 'bearerAuth', '--revision', revision, '--signing-key', join(work, 'signing.pem'), '--signing-alg', 'ES256', '--out', out];
  console.log(`$ svcgate ${args.join(' ').replaceAll(work, '$WORK')}`);
  process.stdout.write(execFileSync(process.execPath, [CLI, ...args], { encoding: 'utf8' }));
  publish(out, published);
}

// In one rename, as a deploy step would: a poll never reads half a file.
function publish(file, name) {
  copyFileSync(file, join(site, `${name}.partial`));
  renameSync(join(site, `${name}.partial`), join(site, name));
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
buildBundle(permissions, 'rev-1', 'bundle.tar.gz');
console.log('the candidate, rev-2: the user role loses read:own on /users/{userId}');
delete permissions.user['/users/{userId}']['read:own'];
buildBundle(permissions, 'rev-2', 'candidate.tar.gz');

const app = express();
app.use(express.static(site));
const bundleServer = await new Promise((resolve) => {
  const server = app.listen(0, '127.0.0.1', () => resolve(server));
});
const bundleUrl = `http://127.0.0.1:${bundleServer.address().port}/bundle.tar.gz`;
const candidateUrl = bundleUrl.replace(/bundle\.tar\.gz$/, 'candidate.tar.gz');
console.log(`bundle server (express.static, ETags): ${bundleUrl}, candidate ${candidateUrl}`);

const replicaEnv = { BUNDLE_URL: bundleUrl, CANDIDATE_URL: candidateUrl, VERIFICATION_KEY: join(work, 'verify.pem'), VERIFICATION_ALG: 'ES256', MIN_DELAY: '1', MAX_DELAY: '2' };
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

const fleetStatus = async (url) => (await fetch(`${url}/fleet/status`)).json();

async function revisions() {
  const of = async (url) => (await fleetStatus(url)).bundle.revision;
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
// The shadow needs the candidate too: until it is loaded, compared requests count as unavailable.
for (const url of replicas) while ((await fleetStatus(url)).candidate?.revision !== 'rev-2') await wait(100);
const user = await sign({ sub: 'u1', role: 'user', userId: [1, 3, 5] });
const admin = await sign({ sub: 'a1', role: 'admin' });
const get = async (url, path, token = user) => (await fetch(`${url}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } })).status;
console.log(`\nreplicas: ${replicas.join(' and ')}, OPA sidecar: ${opaUrl}; every one runs revision rev-1 and shadows rev-2:`);
for (const url of replicas) {
  console.log(`curl -i -H 'Authorization: Bearer ${user}' ${url}/api/v1/users/3    # ${await get(url, '/users/3')}: the user reads its own user`);
  console.log(`curl -s ${url}/fleet/status    # the bundle's revision, last check, last error, the shadow; ${url}/healthz is the readiness probe`);
}
console.log(`curl -s -X POST ${opaUrl}/v1/data/svcgate/authz/decision -d '{"input":{"operation":"GET /users/{userId}","role":"user","params":{"path:userId":["3"]},"claims":{"path:userId":["3"]}}}'`);

console.log('\nshadow: each replica answers from rev-1, then decides the same request with the candidate (rev-2)');
const sent = { 'the user (userId 1, 3, 5)': [['/users/1', user], ['/users/2', user]], admin: [['/users/2', admin]] };
const said = [];
for (const [who, requests] of Object.entries(sent)) {
  const answers = [];
  for (const [path, token] of requests) for (const url of replicas) answers.push(`${path} ${await get(url, path, token)}`);
  said.push(`${who}: GET ${[...new Set(answers)].join(', ')}`);
}
console.log(`after the GET /users/3 above, sent to each replica as ${said.join('; as ')}`);
const compared = 1 + Object.values(sent).flat().length;
for (const [n, url] of replicas.entries()) console.log(`replica ${n + 1}: ${shadowLine(await shadowed(url, compared))}`);

console.log('\npublishing the candidate: candidate.tar.gz (rev-2) becomes bundle.tar.gz');
publish(join(site, 'candidate.tar.gz'), 'bundle.tar.gz');
const took = await untilAll('rev-2');
console.log(`every process switched to rev-2 within ${took} ms of the publish: ${JSON.stringify(await revisions())}`);
for (const url of replicas) console.log(`GET ${url}/api/v1/users/3 -> ${await get(url, '/users/3')} (was 200)`);

/** The replica's shadow status once it has compared `count` requests (the candidate decides after each answer). */
async function shadowed(url, count) {
  for (let tries = 0; ; tries++) {
    const { shadow } = await fleetStatus(url);
    if (shadow.compared + shadow.unavailable + shadow.errors >= count || tries === 50) return shadow;
    await wait(100);
  }
}

/** One line of shadowStatus(): the counts, where the divergences are, the first example. */
function shadowLine(shadow) {
  const where = (table) => Object.entries(table).map(([key, counts]) => `${key} ${counts.divergences} of ${counts.compared}`).join(', ');
  const changes = Object.entries(shadow.changes).filter(([, count]) => count > 0).map(([change, count]) => `${count} ${change}`);
  const first = shadow.examples[0];
  const decision = (side) => (side.allow ? `allow [${side.attributes.join(', ')}]` : 'deny');
  return [
    `${shadow.compared} compared, ${shadow.divergences} divergences${changes.length > 0 ? ` (${changes.join(', ')})` : ''}${shadow.unavailable + shadow.errors > 0 ? `, ${shadow.unavailable} unavailable, ${shadow.errors} errors` : ''}`,
    `  by operation: ${where(shadow.byOperation)}; by role: ${where(shadow.byRole)}`,
    ...(first ? [`  first: ${first.role} ${first.operation}: rev-1 ${decision(first.active)}, rev-2 ${decision(first.shadow)}`] : []),
  ].join('\n');
}

if (process.env.FLEET_KEEP === '1') {
  console.log('\nFLEET_KEEP=1: running until Ctrl-C');
} else {
  stopAll();
  bundleServer.close();
}

// How long activating a new bundle stops the event loop of a server under load, for the example
// ACL and the 1,000 x 1,000 one. The server polls a static bundle server; once it serves the
// first revision under load, a second is published, and the server reports the worst event-loop
// stall between its last unchanged check and the new revision's activation (download, signature
// and hash check, new Wasm instance, data load), against the worst stall under the same load
// without an activation.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { largeAcl, largeApi } from './large-acl.mjs';
import { load, PINNING } from './scenarios.mjs';
import { JWT, requestPool } from './tokens.mjs';

const require = createRequire(import.meta.url);
const express = require('express');
const { compileAcl } = require('svcgate/policy');
const { writeBundle } = require('svcgate/fleet');
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');

function exampleAcl(variant) {
  const permissions = require('js-yaml').load(readFileSync(join(ROOT, 'examples/users-api/permissions.yaml'), 'utf8'));
  // The second revision lets users read every user's profile: the half of the requests that read
  // someone else's profile turn from 403 to 200.
  if (variant === 1) permissions.user['/users/{userId}'] = { 'read:any': ['*', '!password'] };
  return permissions;
}

async function bundleOf(size, variant, signingKey) {
  const data = size === 'large' ? compileAcl({ openapi: largeApi().openapi, acl: largeAcl(variant) }) : compileAcl({ openapi: join(ROOT, 'examples/users-api/openapi.yaml'), acl: exampleAcl(variant), scheme: 'bearerAuth' });
  return writeBundle({
    data,
    wasm: readFileSync(join(ROOT, 'dist/policy.wasm')),
    rego: { 'policies/authz.rego': readFileSync(join(ROOT, 'policies/authz.rego'), 'utf8') },
    revision: `${size}-${variant}`,
    signing: signingKey,
  });
}

async function largePool() {
  const key = new TextEncoder().encode(JWT.secret);
  const pool = [];
  for (let i = 0; i < 1000; i++) {
    const jwt = await new SignJWT({ sub: `u${i}`, role: `role${i}`, id: i }).setProtectedHeader({ alg: 'HS256' }).setIssuer(JWT.issuer).setAudience(JWT.audience).setExpirationTime('2h').sign(key);
    pool.push({ path: `/r${(i * 7) % 1000}/${i}`, headers: { authorization: `Bearer ${jwt}` } });
  }
  return pool;
}

function startStatic(dir) {
  const app = express();
  app.use(express.static(dir));
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function startServer(size, url, verificationKey) {
  const command = [process.execPath, join(HERE, 'activation-server.mjs'), size];
  if (PINNING) command.unshift('taskset', '-c', PINNING.server);
  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BUNDLE_URL: url, BUNDLE_KEY: verificationKey } });
  const events = [];
  const waiters = [];
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      const event = line.startsWith('PORT ') ? { type: 'listening', port: Number(line.slice(5)) } : JSON.parse(line);
      events.push(event);
      for (const waiter of waiters.splice(0)) waiter();
    }
  });
  const next = async (match) => {
    for (;;) {
      const found = events.find(match);
      if (found) return found;
      await new Promise((resolve) => waiters.push(resolve));
    }
  };
  return { child, events, next };
}

/** One size: the worst stall under load without activation, and with one. */
export async function activationStall(size, seconds = 6) {
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-stall-'));
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signing = { key: privateKey.export({ type: 'pkcs8', format: 'pem' }), algorithm: 'ES256' };
  const publish = (bytes) => {
    writeFileSync(join(dir, '.next'), bytes);
    renameSync(join(dir, '.next'), join(dir, 'bundle.tar.gz'));
  };
  const first = await bundleOf(size, 0, signing);
  const second = await bundleOf(size, 1, signing);
  publish(first);
  const statics = await startStatic(dir);
  const server = startServer(size, `http://127.0.0.1:${statics.address().port}/bundle.tar.gz`, publicKey.export({ type: 'spki', format: 'pem' }));
  try {
    const { port } = await server.next((event) => event.type === 'listening');
    const pool = size === 'large' ? await largePool() : await requestPool((id) => `/api/v1/users/${id}`);
    const loading = load(`http://127.0.0.1:${port}`, pool, seconds);
    await new Promise((resolve) => setTimeout(resolve, (seconds * 1000) / 3));
    const seen = server.events.length;
    // The unchanged checks under load before the new revision: the stall of serving alone.
    const baseline = Math.max(0, ...server.events.slice(0, seen).filter((event) => event.type === 'unchanged').slice(1).map((event) => event.worstStallMs));
    publish(second);
    const activated = await server.next((event) => event.type === 'activated' && event.revision === `${size}-1`);
    const result = await loading;
    return {
      size,
      bundleBytes: second.length,
      baselineMs: baseline,
      stallMs: activated.worstStallMs,
      downloadMs: activated.downloadMs,
      activationMs: activated.activationMs,
      statuses: { '2xx': result['2xx'], '4xx': result['4xx'], '5xx': result['5xx'], errors: result.errors + result.timeouts },
    };
  } finally {
    server.child.kill();
    statics.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const size of ['example', 'large']) console.log(JSON.stringify(await activationStall(size)));
}

// The HTTP scenarios shared by run.mjs and profile.mjs: what each one requests, and how its server
// process is started and loaded.
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const HERE = dirname(fileURLToPath(import.meta.url));
const userPath = (id) => `/api/v1/users/${id}`;
const methodPath = (id) => `/api/user-service/get-user?userId=${id}`;

export const SCENARIOS = [
  { name: 'express-bare', label: 'Express, bare', path: userPath },
  { name: 'express-acl', label: 'Express + bearerJwtAcl', twin: 'express-bare', target: 0.9, path: userPath },
  // Every request a token and a user never seen before: the token cache and the decision cache both miss.
  { name: 'express-bare-cold', server: 'express-bare', label: 'Express, bare, every request a new token and user', path: userPath, cold: true },
  { name: 'express-acl-cold', server: 'express-acl', label: 'Express + bearerJwtAcl, every request a new token and user (caches miss)', twin: 'express-bare-cold', target: 0.85, path: userPath, cold: true },
  // Tokens signed with a key from a JWK set on 127.0.0.1, both caches off (tokens.mjs, signedPools).
  ...['RS256', 'ES256', 'EdDSA'].map((alg) => ({ name: `express-acl-${alg.toLowerCase()}`, server: 'express-acl-signed', env: { BENCH_ALG: alg }, signed: alg, label: `Express + bearerJwtAcl, ${alg} from a local JWK set, both caches off`, twin: 'express-bare-cold', path: userPath })),
  { name: 'oas-bare', label: '@oas-tools/core, no auth', path: userPath },
  { name: 'oas-security', label: '@oas-tools/core, its security step alone (a handler that accepts any token)', twin: 'oas-bare', path: userPath },
  { name: 'oas-deny-half', label: "@oas-tools/core, its security step alone and its own 403 to every other request (a use() middleware, no svcgate)", twin: 'oas-security', path: userPath },
  { name: 'oas-acl', label: '@oas-tools/core + bearerJwt + BearerJWT', twin: 'oas-bare', path: userPath },
  { name: 'handwritten', label: 'hand-written Express route', path: methodPath },
  { name: 'svcapi', label: 'SvcApi', twin: 'handwritten', target: 0.9, path: methodPath },
  { name: 'svcapi-acl', label: 'SvcApi + svcAcl', twin: 'handwritten', target: 0.85, path: methodPath },
];

/**
 * svcgate beside the floor and its peers (peers.mjs), each loaded at the same time as its bare
 * twin: warm, the 1,000 rotating tokens of requestPool; cold, a new HS256 token and user every
 * request (coldRequests), or for the asymmetric algorithms 1,000 tokens of new users signed
 * beforehand (signedPools), svcgate's caches off. `group` is the column of the peers' table, `peer`
 * its row. The floor and the peers cache nothing, so their asymmetric rows serve warm and cold.
 */
const HS256_GROUPS = [
  { group: 'HS256 warm', twin: 'express-bare' },
  { group: 'HS256 cold', twin: 'express-bare-cold', cold: true },
];
const SIGNED_PEERS = { RS256: ['floor', 'oauth2-bearer', 'express-jwt'], ES256: ['floor', 'oauth2-bearer'], EdDSA: ['floor', 'oauth2-bearer'] };
export const PEER_SCENARIOS = [
  { name: 'trivial-http', label: 'node:http answering a fixed 200, no work', path: userPath },
  ...HS256_GROUPS.flatMap(({ group, twin, cold }) =>
    ['floor', 'oauth2-bearer', 'express-jwt'].map((peer) => ({ name: `${peer}-hs256${cold ? '-cold' : ''}`, server: `${peer}-hs256`, peer, group, twin, cold, path: userPath })),
  ),
  ...Object.entries(SIGNED_PEERS).flatMap(([alg, peers]) =>
    peers.map((peer) => ({ name: `${peer}-${alg.toLowerCase()}`, server: `${peer}-signed`, env: { BENCH_ALG: alg }, signed: alg, peer, group: `${alg} cold`, twin: 'express-bare-cold', path: userPath })),
  ),
  { name: 'express-acl-rs256-warm', server: 'express-acl-signed', env: { BENCH_ALG: 'RS256', BENCH_CACHES: 'on' }, signed: 'RS256', peer: 'svcgate', group: 'RS256 warm', twin: 'express-bare-cold', path: userPath },
];

/**
 * Shadow evaluation (shadow.mjs): the Express scenario with a decisionLog, against the same with
 * `shadow` at sampleRate 1 and 0 (the candidate revokes one permission), warm and cold. `server`
 * and `env` name the process, `twin` what it is loaded beside.
 */
const shadowServer = (rate) => ({ server: 'express-acl-logged', env: rate === undefined ? {} : { BENCH_SHADOW_RATE: String(rate) } });
export const SHADOW_SCENARIOS = [
  { name: 'express-acl-logged', ...shadowServer(), label: 'Express + bearerJwtAcl with a decisionLog, no shadow', path: userPath },
  { name: 'express-acl-shadow-1', ...shadowServer(1), label: 'the same with shadow at sampleRate 1', twin: 'express-acl-logged', target: 0.9, path: userPath },
  { name: 'express-acl-shadow-0', ...shadowServer(0), label: 'the same with shadow at sampleRate 0', twin: 'express-acl-logged', path: userPath },
  { name: 'express-acl-logged-cold', ...shadowServer(), label: 'Express + bearerJwtAcl with a decisionLog, no shadow, every request a new token and user', path: userPath, cold: true },
  { name: 'express-acl-shadow-1-cold', ...shadowServer(1), label: 'the same with shadow at sampleRate 1', twin: 'express-acl-logged-cold', path: userPath, cold: true },
];

/**
 * With taskset and two or more CPUs, servers run on the last CPU and the load generator on the
 * others, so neither takes time from the other, and twins loaded together share one CPU.
 */
export const PINNING = (() => {
  const cpus = availableParallelism();
  if (cpus < 2 || spawnSync('taskset', ['-V']).status !== 0) return null;
  return { server: String(cpus - 1), load: cpus === 2 ? '0' : `0-${cpus - 2}` };
})();

/** Moves this process (the load generator) off the servers' CPU. */
export function pinLoadGenerator() {
  if (PINNING) spawnSync('taskset', ['-a', '-p', '-c', PINNING.load, String(process.pid)]);
}

/** Starts server.mjs for one scenario (by its `server`, else its name) in a process of its own; resolves once it listens. */
export function startServer(name, env = {}) {
  const scenario = [...SCENARIOS, ...PEER_SCENARIOS, ...SHADOW_SCENARIOS].find((candidate) => candidate.name === name);
  const server = scenario?.server ?? name;
  env = { ...scenario?.env, ...env };
  const command = [process.execPath, join(HERE, 'server.mjs'), server];
  if (PINNING) command.unshift('taskset', '-c', PINNING.server);
  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const port = /PORT (\d+)/.exec(output)?.[1];
      if (port) resolve({ child, url: `http://127.0.0.1:${port}` });
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
}

/** 100 connections for `seconds`, each request the next of the pool (path and Authorization), or what `pool()` makes. */
export function load(url, pool, seconds) {
  let next = 0;
  const nextRequest = typeof pool === 'function' ? pool : () => pool[next++ % pool.length];
  return autocannon({
    url,
    connections: 100,
    pipelining: 1,
    duration: seconds,
    requests: [
      {
        setupRequest: (request) => {
          const { path, headers } = nextRequest();
          return { ...request, path, headers: { ...request.headers, ...headers } };
        },
      },
    ],
  });
}

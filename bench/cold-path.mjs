// `node bench/cold-path.mjs [--dist <root>] [--runs 30] [--requests 2000] [--profile] [--top 40] [--callers <function>]`: the cold
// path of bearerJwtAcl in one process, without sockets or a load generator, so that a change to it
// can be measured A/B (run it against two builds in turn: `--dist` names a folder holding
// dist/cjs, default this checkout). Every request has a token and a user never seen before, so
// the token cache and the decision cache both miss, as in the express-acl-cold scenario; half ask
// for the caller's own user (200 through the route's filter), half for the next one (403).
//
// The middleware is called with a plain request object and a real http.ServerResponse without a
// socket (its headers and body are written to memory), and the route handler of bench/server.mjs
// answers an allowed request. Tokens are signed before each timed run, not during it.
//
// Prints per-request microseconds of CPU (user and system) per run and their median: `guard` (the middleware and the
// route, all of the cold path) and `verify` (bearerJwt's handler alone on other fresh tokens, the
// share of token checking in it). `--profile` adds V8's CPU profile of the guard runs: self time
// per function and per area of svcgate (token, request, evaluate, guard, host...), in us per request.
import { createHmac } from 'node:crypto';
import { ServerResponse } from 'node:http';
import { Session } from 'node:inspector';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JWT } from './tokens.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The options and what each takes; a misspelt one (`--run 3`) is refused rather than ignored, a run of 30 later. */
const OPTIONS = { dist: 'folder', runs: 'count', requests: 'count', top: 'count', callers: 'function name', profile: 'flag' };

const args = readArguments(process.argv.slice(2));
const root = resolve(args.dist ?? join(HERE, '..'));
const require = createRequire(join(root, 'package.json'));
const { bearerJwt, bearerJwtAcl } = require(join(root, 'dist/cjs/auth/index.js'));

const EXAMPLE = join(HERE, '../examples/users-api');
const middleware = bearerJwtAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), handler: bearerJwt(JWT), acl: { bearerAuth: join(EXAMPLE, 'permissions.yaml') } });
const verifier = bearerJwt(JWT);
const user = (id) => ({ id, name: `user ${id}`, email: `u${id}@example.test`, password: 'secret' });

// One counter for the whole process: no token or user is ever seen twice.
const header = base64url({ alg: 'HS256', typ: 'JWT' });
const exp = Math.floor(Date.now() / 1000) + 7200;
let n = 1_000_000;
function coldRequest() {
  n += 1;
  const payload = base64url({ sub: `c${n}`, role: 'user', userId: [n], iss: JWT.issuer, aud: JWT.audience, exp });
  const signature = createHmac('sha256', JWT.secret).update(`${header}.${payload}`).digest('base64url');
  const url = `/api/v1/users/${n % 2 === 0 ? n : n + 1}`;
  return { url, authorization: `Bearer ${header}.${payload}.${signature}` };
}

function base64url(value) {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** One request through the middleware and, when it goes on, the route; resolves (or returns true) once answered. */
function serve({ url, authorization }) {
  const req = { method: 'GET', url, originalUrl: url, baseUrl: '', headers: { host: '127.0.0.1', authorization }, socket: null };
  const res = new ServerResponse({ method: 'GET', httpVersionMajor: 1, httpVersionMinor: 1, headers: req.headers });
  let settle;
  let done = false;
  const answered = () => {
    done = true;
    settle?.();
  };
  // Without a socket, 'finish' never comes: the answer is seen at end().
  res.end = function end(...parts) {
    ServerResponse.prototype.end.apply(this, parts);
    answered();
    return this;
  };
  middleware(req, res, (error) => {
    if (error) throw error;
    const id = Number(url.slice(url.lastIndexOf('/') + 1));
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(JSON.stringify(req.auth.filter(user(id))));
  });
  return done || new Promise((resolve) => (settle = resolve));
}

// CPU time of this process, not wall time: other processes on the machine change the latter far more.
function cpuMicroseconds() {
  const { user, system } = process.cpuUsage();
  return user + system;
}

async function timeGuard(requests) {
  const started = cpuMicroseconds();
  for (const request of requests) {
    const answer = serve(request);
    if (answer !== true) await answer;
  }
  return (cpuMicroseconds() - started) / requests.length;
}

async function timeVerify(requests) {
  const started = cpuMicroseconds();
  for (const { authorization } of requests) await verifier(authorization);
  return (cpuMicroseconds() - started) / requests.length;
}

const batch = () => Array.from({ length: args.requests }, coldRequest);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// Warm-up: V8 compiles the path, and the caches reach their steady size.
for (let i = 0; i < 3; i++) {
  await timeGuard(batch());
  await timeVerify(batch());
}

const profiler = args.profile ? await startProfiler() : undefined;
const guard = [];
const verify = [];
let profiled = 0;
for (let run = 0; run < args.runs; run++) {
  const requests = batch();
  await profiler?.resume();
  guard.push(await timeGuard(requests));
  await profiler?.pause();
  profiled += requests.length;
  verify.push(await timeVerify(batch()));
}

// On a busy machine the least of many short runs is the steadiest figure: other processes only ever add to it.
const show = (values) => `min ${Math.min(...values).toFixed(1)} us, median ${median(values).toFixed(1)} (max ${Math.max(...values).toFixed(1)})`;
console.log(`dist: ${root}; ${args.runs} runs of ${args.requests} cold requests`);
console.log(`guard   ${show(guard)}   runs: ${guard.map((value) => value.toFixed(1)).join(' ')}`);
console.log(`verify  ${show(verify)}   runs: ${verify.map((value) => value.toFixed(1)).join(' ')}`);
console.log(`guard - verify: ${(Math.min(...guard) - Math.min(...verify)).toFixed(1)} us (of the least runs)`);
if (profiler) report(await profiler.stop(), profiled, median(guard));

/** V8's CPU profiler, on only while a guard run is timed (profiles of the pauses are merged). */
async function startProfiler() {
  const session = new Session();
  session.connect();
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 100 });
  const profiles = [];
  return {
    resume: () => post('Profiler.start'),
    pause: async () => profiles.push((await post('Profiler.stop')).profile),
    stop: async () => profiles,
  };
}

/**
 * The profile's clock is the wall clock, which on a busy machine runs on while this process waits
 * for a CPU: each entry is shown as its share of the samples, and in CPU microseconds per request
 * as that share of the median guard run (`cpuPerRequest`).
 */
function report(profiles, requests, cpuPerRequest) {
  const byFunction = new Map();
  const byArea = new Map();
  for (const profile of profiles) {
    const counts = new Map();
    for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
    const interval = (profile.endTime - profile.startTime) / profile.samples.length;
    for (const node of profile.nodes) {
      const us = (counts.get(node.id) ?? 0) * interval;
      if (us === 0) continue;
      const { functionName, url, lineNumber } = node.callFrame;
      const where = `${functionName || '(anonymous)'} ${shortUrl(url)}${url ? `:${lineNumber + 1}` : ''}`;
      byFunction.set(where, (byFunction.get(where) ?? 0) + us);
      const area = areaOf(url, functionName);
      byArea.set(area, (byArea.get(area) ?? 0) + us);
    }
  }
  let sampled = 0;
  for (const us of byArea.values()) sampled += us;
  const perRequest = (us) => `${((us / sampled) * cpuPerRequest).toFixed(2).padStart(7)} ${((100 * us) / sampled).toFixed(1).padStart(5)}%`;

  console.log(`\nself time per area (CPU us per request, of the median guard run ${cpuPerRequest.toFixed(1)} us; share of the samples):`);
  for (const [area, us] of top(byArea, 25)) console.log(`  ${perRequest(us)}  ${area}`);
  console.log('\nfunctions with the most self time (CPU us per request; share of the samples):');
  for (const [where, us] of top(byFunction, Number(args.top ?? 40))) console.log(`  ${perRequest(us)}  ${where}`);
  if (args.callers) printCallers(profiles, args.callers, perRequest);
}

/** `--callers <function name>`: who called it, by the caller's self-time-weighted samples of it. */
function printCallers(profiles, name, perRequest) {
  const callers = new Map();
  for (const profile of profiles) {
    const counts = new Map();
    for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
    const interval = (profile.endTime - profile.startTime) / profile.samples.length;
    const parents = new Map();
    for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node);
    for (const node of profile.nodes) {
      if (node.callFrame.functionName !== name) continue;
      const parent = parents.get(node.id);
      const where = parent ? `${parent.callFrame.functionName || '(anonymous)'} ${shortUrl(parent.callFrame.url)}:${parent.callFrame.lineNumber + 1}` : '(root)';
      callers.set(where, (callers.get(where) ?? 0) + (counts.get(node.id) ?? 0) * interval);
    }
  }
  console.log(`\ncallers of ${name} (its self time, CPU us per request; share of the samples):`);
  for (const [where, us] of top(callers, 15)) console.log(`  ${perRequest(us)}  ${where}`);
}

function top(map, count) {
  return [...map].sort((a, b) => b[1] - a[1]).slice(0, count);
}

function shortUrl(url) {
  const at = url.lastIndexOf('node_modules/');
  if (at !== -1) return url.slice(at + 'node_modules/'.length);
  const dist = url.indexOf('/dist/cjs/');
  if (dist !== -1) return url.slice(dist + '/dist/cjs/'.length);
  return url.replace(/^file:\/\//, '');
}

/** svcgate's folders (token, policy/request, guard...), a package, node's internals, or V8's own entries. */
function areaOf(url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('wasm://')) return 'policy.wasm';
  const svcgate = /\/dist\/cjs\/((?:policy|hosts)\/[^/]+|[^/]+)\//.exec(url);
  if (svcgate) return `svcgate ${svcgate[1]}`;
  return shortUrl(url);
}

function readArguments(argv) {
  const options = { runs: 30, requests: 2000 };
  const usage = `usage: node bench/cold-path.mjs ${Object.entries(OPTIONS).map(([name, kind]) => (kind === 'flag' ? `[--${name}]` : `[--${name} <${kind}>]`)).join(' ')}`;
  const refuse = (problem) => {
    console.error(`${problem}\n${usage}`);
    process.exit(2);
  };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].replace(/^--/, '');
    const kind = argv[i].startsWith('--') ? OPTIONS[name] : undefined;
    if (kind === undefined) refuse(`unknown argument ${JSON.stringify(argv[i])}`);
    if (kind === 'flag') {
      options[name] = true;
      continue;
    }
    const value = argv[++i];
    if (value === undefined) refuse(`--${name} needs a ${kind}`);
    if (kind === 'count' && !/^[1-9]\d*$/.test(value)) refuse(`--${name} takes a whole number of 1 or more, not ${JSON.stringify(value)}`);
    options[name] = kind === 'count' ? Number(value) : value;
  }
  return options;
}

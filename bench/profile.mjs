// `npm run bench:profile -- <scenario> [seconds]`: loads one scenario's server as the benchmark
// does, with V8's CPU profiler (the one behind `node --cpu-prof`) on after the warm-up, and prints
// where its CPU time went: self time per package and the functions with the most of it.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, PEER_SCENARIOS, pinLoadGenerator, SCENARIOS, SHADOW_SCENARIOS, startServer } from './scenarios.mjs';
import { coldRequests, requestPool, signedPools } from './tokens.mjs';

const [name, seconds = '10'] = process.argv.slice(2);
// The peers' scenarios too (the floor, express-oauth2-jwt-bearer, express-jwt), and the shadow's, to compare profiles.
const ALL = [...SCENARIOS, ...PEER_SCENARIOS, ...SHADOW_SCENARIOS];
const scenario = ALL.find((s) => s.name === name);
// Seconds that are not a positive number would profile autocannon's default of about a second instead.
if (!scenario || !(Number(seconds) > 0)) {
  console.error(`usage: npm run bench:profile -- <scenario> [seconds]; scenarios: ${ALL.map((s) => s.name).join(', ')}`);
  process.exit(2);
}

pinLoadGenerator();
const file = join(mkdtempSync(join(tmpdir(), 'svcgate-profile-')), `${name}.cpuprofile`);
const signed = scenario.signed ? await signedPools(scenario.path) : undefined;
const { child, url } = await startServer(name, { BENCH_PROFILE: file });
const pool = signed ? signed.pools[scenario.signed] : scenario.cold ? coldRequests(scenario.path) : await requestPool(scenario.path);
await load(url, pool, 2);
child.kill('SIGUSR2');
const result = await load(url, pool, Number(seconds));
await new Promise((resolve) => {
  child.once('exit', resolve);
  child.kill('SIGINT');
});
signed?.close();
const profile = JSON.parse(readFileSync(file, 'utf8'));

// Self time per node: the samples that landed in it, times the mean sampling interval.
const counts = new Map();
for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
const interval = (profile.endTime - profile.startTime) / profile.samples.length / 1000;
const byFunction = new Map();
const byPackage = new Map();
let total = 0;
for (const node of profile.nodes) {
  const ms = (counts.get(node.id) ?? 0) * interval;
  if (ms === 0) continue;
  const { functionName, url: source, lineNumber } = node.callFrame;
  const where = `${functionName || '(anonymous)'} ${shortUrl(source)}${source ? `:${lineNumber + 1}` : ''}`;
  byFunction.set(where, (byFunction.get(where) ?? 0) + ms);
  const owner = packageOf(source, functionName);
  byPackage.set(owner, (byPackage.get(owner) ?? 0) + ms);
  total += ms;
}
const idle = byPackage.get('(idle)') ?? 0;
const busy = total - idle;
const perRequest = (ms) => ((ms * 1000) / result.requests.total).toFixed(1);

console.log(`${name}: ${Math.round(result.requests.average)} req/s; ${busy.toFixed(0)} ms busy of ${total.toFixed(0)} ms; ${perRequest(busy)} us of CPU per request`);
console.log(`profile: ${file}\n\nself time per package (us per request):`);
for (const [owner, ms] of top(byPackage, 15)) if (owner !== '(idle)') console.log(`  ${perRequest(ms).padStart(7)}  ${owner}`);
console.log('\nfunctions with the most self time (us per request):');
for (const [where, ms] of top(byFunction, 30)) if (!where.startsWith('(idle)')) console.log(`  ${perRequest(ms).padStart(7)}  ${where}`);

function top(map, n) {
  return [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
}

function shortUrl(source) {
  const at = source.lastIndexOf('node_modules/');
  if (at !== -1) return source.slice(at + 'node_modules/'.length);
  return source.replace(/^file:\/\//, '').replace(process.cwd() + '/', '');
}

function packageOf(source, functionName) {
  if (!source) return functionName.startsWith('(') ? functionName : '(native)';
  if (source.startsWith('node:')) return 'node internals';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (match) return match[1];
  if (source.includes('/dist/')) return 'svcgate';
  if (source.startsWith('wasm://')) return 'policy.wasm';
  return shortUrl(source);
}

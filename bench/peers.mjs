// svcgate beside the floor (the token checked by hand with node:crypto) and its peers
// (express-oauth2-jwt-bearer, express-jwt), each followed by the same permission written by hand,
// each loaded at the same time as its bare twin; and whether the load generator was the limit.
// Shared by run.mjs (after its own scenarios, whose svcgate ratios it reuses) and BENCH_ONLY=peers.
import { median, simultaneousRatio } from './ratios.mjs';
import { load, PEER_SCENARIOS, SCENARIOS, startServer } from './scenarios.mjs';
import { coldRequests, requestPool, signedPools } from './tokens.mjs';

/** Windows of 3 s per pair: 7, as the measurements of issue 31, keeps the section near 6 minutes. */
const PEER_WINDOWS = Number(process.env.BENCH_PEER_WINDOWS ?? 7);
/** BENCH_PEER_GROUPS (a comma-separated list of the table's columns, e.g. 'HS256 cold,RS256 cold') measures only those, for trying. */
const ONLY_GROUPS = process.env.BENCH_PEER_GROUPS?.split(',').map((group) => group.trim());
const CHECK_ROUNDS = 4;
const CHECK_SECONDS = 2;

/** The column of the peers' table where svcgate's own scenario is. */
const SVCGATE = {
  'HS256 warm': 'express-acl',
  'HS256 cold': 'express-acl-cold',
  'RS256 warm': 'express-acl-rs256-warm',
  'RS256 cold': 'express-acl-rs256',
  'ES256 cold': 'express-acl-es256',
  'EdDSA cold': 'express-acl-eddsa',
};
const GROUPS = Object.keys(SVCGATE);
// A misspelt column would measure nothing and print a table of 'not measured' a minute later.
const UNKNOWN_GROUPS = ONLY_GROUPS?.filter((group) => !GROUPS.includes(group)) ?? [];
if (UNKNOWN_GROUPS.length > 0) {
  console.error(`BENCH_PEER_GROUPS: no column ${UNKNOWN_GROUPS.map((group) => JSON.stringify(group)).join(', ')}; the columns are ${GROUPS.map((group) => `'${group}'`).join(', ')}, comma-separated`);
  process.exit(2);
}
const ROWS = [
  { peer: 'floor', label: 'floor: node:crypto by hand (KeyObject made once), no cache' },
  { peer: 'svcgate', label: 'svcgate: bearerJwt + bearerJwtAcl (the example ACL)' },
  { peer: 'oauth2-bearer', label: 'express-oauth2-jwt-bearer 1.10' },
  { peer: 'express-jwt', label: 'express-jwt 8 (RS256: jwks-rsa 3)' },
];

/**
 * `measured`: the ratios run.mjs already took, by `name/twin`; svcgate's pairs among them are not
 * loaded again. Resolves to what peerLines prints.
 */
export async function peers(measured = {}) {
  const all = new Map([...SCENARIOS, ...PEER_SCENARIOS].map((scenario) => [scenario.name, scenario]));
  const svcgate = Object.values(SVCGATE).map((name) => all.get(name));
  const groupOf = (scenario) => scenario.group ?? GROUPS.find((group) => SVCGATE[group] === scenario.name);
  const pairs = [...PEER_SCENARIOS.filter((s) => s.twin), ...svcgate.filter((s) => !PEER_SCENARIOS.includes(s) && !measured[`${s.name}/${s.twin}`])].filter((s) => !ONLY_GROUPS || ONLY_GROUPS.includes(groupOf(s)));
  const names = new Set(['trivial-http', 'express-bare', ...pairs.flatMap((s) => [s.name, s.twin])]);
  const signed = await signedPools(all.get('express-bare').path);
  const servers = {};
  const pools = {};
  try {
    for (const name of names) {
      const scenario = all.get(name);
      servers[name] = await startServer(name);
      pools[name] = scenario.signed ? signed.pools[scenario.signed] : scenario.cold ? coldRequests(scenario.path) : await requestPool(scenario.path);
    }
    for (const scenario of pairs) await answersBoth(scenario.name, servers[scenario.name].url, pools[scenario.name]);
    const run = (name, seconds) => load(servers[name].url, pools[name], seconds);
    const options = { windows: PEER_WINDOWS, pidOf: (name) => servers[name].child.pid };
    const check = await loadGeneratorCheck(run, options);
    const ratios = { ...measured };
    for (const scenario of pairs) ratios[`${scenario.name}/${scenario.twin}`] = await simultaneousRatio(run, scenario.name, scenario.twin, options);
    check.busiest = Math.max(...pairs.map((s) => ratios[`${s.name}/${s.twin}`].loadCpu));
    return { cells: cells(all, ratios), check };
  } finally {
    for (const { child } of Object.values(servers)) child.kill();
    signed.close();
  }
}

/** A guarded server that answered anything but one 200 and one 403 to an allowed and a denied request would measure nothing. */
async function answersBoth(name, url, pool) {
  const next = typeof pool === 'function' ? pool : (() => { let i = 0; return () => pool[i++]; })();
  const statuses = [];
  for (let i = 0; i < 2; i++) {
    const { path, headers } = next();
    statuses.push((await fetch(url + path, { headers })).status);
  }
  if (statuses.sort().join() !== '200,403') throw new Error(`${name} answered ${statuses.join(' and ')} to an allowed and a denied request`);
}

/**
 * The server that answers without work and bare Express, loaded alone in alternating rounds and
 * then at the same time: if the trivial server is not well above bare Express alone, the load
 * generator, not the servers, set the pace, and simultaneous ratios are pulled toward 1.
 */
async function loadGeneratorCheck(run, options) {
  const alone = { 'trivial-http': [], 'express-bare': [] };
  await run('trivial-http', 1);
  await run('express-bare', 1);
  for (let round = 0; round < CHECK_ROUNDS; round++) {
    for (const name of round % 2 === 0 ? ['trivial-http', 'express-bare'] : ['express-bare', 'trivial-http']) {
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      const result = await run(name, CHECK_SECONDS);
      const used = process.cpuUsage(cpu);
      alone[name].push({ rps: result.requests.total / result.duration, cpu: (used.user + used.system) / 1000 / (performance.now() - t0) });
    }
  }
  const summary = (rounds) => ({ rps: median(rounds.map((r) => r.rps)), cpu: median(rounds.map((r) => r.cpu)) });
  return { trivial: summary(alone['trivial-http']), bare: summary(alone['express-bare']), together: await simultaneousRatio(run, 'trivial-http', 'express-bare', options) };
}

function cells(all, ratios) {
  const table = {};
  for (const { peer } of ROWS) {
    table[peer] = {};
    for (const group of GROUPS) {
      const name = peer === 'svcgate' ? SVCGATE[group] : [...all.values()].find((s) => s.peer === peer && s.group === group)?.name;
      if (name) table[peer][group] = ratios[`${name}/${all.get(name).twin}`];
    }
  }
  return table;
}

const fmt = (n, digits = 2) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ratioText = (ratio) => `${fmt(ratio.value)} (${fmt(ratio.low)}-${fmt(ratio.high)})`;

/** The section of results.md: the table, the issue's targets met or missed with their numbers, and the load generator's check. */
export function peerLines({ cells: table, check }) {
  const targets = [];
  // svcgate's group against `factor` times the peer's, on both measures.
  const atLeast = (what, group, factor, peer, peerGroup = group) => {
    const verdict = (measure, label) => {
      const [ours, theirs] = [measure(table.svcgate[group]), measure(table[peer][peerGroup])];
      if (ours === undefined || theirs === undefined) return `${label}: not measured`;
      const bound = factor * theirs;
      return `${label} ${fmt(ours)} against ${factor === 1 ? '' : `${factor} x ${fmt(theirs)} = `}${fmt(bound)}, ${ours >= bound ? 'met' : 'MISSED'} (${fmt(ours / theirs)} of ${peer})`;
    };
    targets.push(`- ${what}: ${verdict((r) => r?.value, 'requests')}; ${verdict((r) => r?.perCpu?.value, 'per CPU second')}.`);
  };
  atLeast('Cold HS256, at least 0.90 of the floor', 'HS256 cold', 0.9, 'floor');
  for (const alg of ['RS256', 'ES256', 'EdDSA']) {
    atLeast(`Cold ${alg}, at least 0.90 of the floor`, `${alg} cold`, 0.9, 'floor');
    atLeast(`Cold ${alg}, at least 1.5 x express-oauth2-jwt-bearer`, `${alg} cold`, 1.5, 'oauth2-bearer');
  }
  atLeast('Warm HS256, at least the floor', 'HS256 warm', 1, 'floor');
  atLeast('Warm RS256, at least the floor', 'RS256 warm', 1, 'floor', 'RS256 cold');
  const cellOf = (measure) => (peer, group) => {
    const ratio = measure(table[peer][group]);
    if (ratio) return ratioText(ratio);
    return group === 'RS256 warm' && table[peer]['RS256 cold'] ? 'as cold (no cache)' : '';
  };
  const tableOf = (measure) => [
    `| verifier, then the same permission | ${GROUPS.join(' | ')} |`,
    `|---|${GROUPS.map(() => '---:').join('|')}|`,
    ...ROWS.map(({ peer, label }) => `| ${label} | ${GROUPS.map((group) => cellOf(measure)(peer, group)).join(' | ')} |`),
  ];
  const headroom = check.trivial.rps / check.bare.rps;
  // Without /proc (not Linux), no CPU time was read: the requests ratio alone.
  const perCpuRead = check.together.busy !== undefined;
  const { guarded: trivialShare, twin: bareShare } = check.together.busy ?? {};
  // Of the CPU the two servers used: other work on the machine may take the rest.
  const trivialPart = trivialShare / (trivialShare + bareShare);
  const shares = perCpuRead && `the server that does nothing used ${fmt(trivialShare)} of a CPU and bare Express ${fmt(bareShare)} (${fmt(trivialPart * 100, 0)}% of what the two used${trivialShare + bareShare < 0.9 ? `; together ${fmt(trivialShare + bareShare)} of their CPU, the rest idle or taken by other work on the machine` : ''})`;
  const verdict = [
    headroom < 1.2
      ? 'The load generator WAS the limit: alone, it could not drive a server that does nothing much faster than bare Express, so every ratio to a twin above is pulled toward 1.'
      : 'Alone, the load generator drove the server that does nothing well above bare Express: it can send more than one Express server takes.',
    !perCpuRead
      ? ''
      : trivialPart < 0.45
      ? `Loaded together, ${shares}: the cheap server waited for requests (each of its 100 connections sends the next request only after the answer, through one load generator, while bare Express held the CPU), so where two servers' costs differ much, the requests ratio is pulled toward 1 and the ratio per CPU second is the one to read.`
      : `Loaded together, ${shares}: both were kept busy, and the requests ratios measure the servers.`,
  ].join(' ').trim();
  return [
    '## svcgate beside its peers',
    '',
    `Each server verifies the token and then applies the same permission (role \`user\` reads /users/{userId} only for an id in its userId claim; else 403): svcgate through the example ACL, the others by hand. Each loaded at the same time as bare Express on the same CPU, median of ${PEER_WINDOWS} windows of 3 s (lowest-highest). Warm: 1,000 rotating HS256 tokens, half denied. Cold HS256: a new token and user every request, signed by the load generator. RS256, ES256, EdDSA: keys from a JWK set on 127.0.0.1; the load generator cannot sign these per request, so 1,000 tokens of new users are signed beforehand and rotate, svcgate's token and decision caches off ("cold"), or on ("RS256 warm"). The floor and the peers cache nothing, so their warm and cold are the same work.`,
    '',
    'Requests answered, ratio to the twin:',
    '',
    ...tableOf((ratio) => ratio),
    '',
    ...(perCpuRead ? ["Requests per CPU second of the server process (all its threads, from /proc), ratio to the twin's in the same windows. The scheduler shares a CPU between threads, not processes: jose 4 inside express-oauth2-jwt-bearer checks RSA, EC and Ed25519 signatures on libuv's thread pool (svcgate and express-jwt check them synchronously, on the main thread), whose threads take CPU time beside the main thread's, so where this table is below the first one, the server got more than its half of the CPU and the requests ratio flatters it:",
    '',
    ...tableOf((ratio) => ratio?.perCpu),
    ''] : []),
    'Targets of issue 31 (set on the requests ratio; the ratio per CPU second beside it):',
    '',
    ...targets,
    '',
    `Load generator (one autocannon process, this one, on the load CPU): alone, median of ${CHECK_ROUNDS} alternating rounds of ${CHECK_SECONDS} s, a node:http server answering a fixed 200 without work took ${fmt(check.trivial.rps, 0)} req/s (the generator used ${fmt(check.trivial.cpu * 100, 0)}% of a CPU) and bare Express ${fmt(check.bare.rps, 0)} req/s (${fmt(check.bare.cpu * 100, 0)}%): ${fmt(headroom)} times; loaded at the same time, the trivial server answered ${ratioText(check.together)} times as many (${perCpuRead ? `per CPU second: ${ratioText(check.together.perCpu)}; ` : ''}load generator at ${fmt(check.together.loadCpu * 100, 0)}% of a CPU); over the pairs of this section it used at most ${fmt(check.busiest * 100, 0)}% of a CPU. ${verdict}`,
  ];
}

// `node bench/load-generators.mjs [rounds]`: does a second autocannon process help? The server that
// answers without work and bare Express, loaded at the same time for 3 s, by this one process (as
// run.mjs does) and by one child process per server, in alternating rounds (default 6). Prints each
// round's requests ratio, ratio per CPU second, and the share of the servers' CPU each server used:
// if the cheap server stays well under half with one process and reaches it with two, one
// process per twin would serve the bench better. See docs/performance.md, "svcgate beside its peers".
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, median } from './ratios.mjs';
import { load, pinLoadGenerator, startServer } from './scenarios.mjs';
import { requestPool } from './tokens.mjs';

const userPath = (id) => `/api/v1/users/${id}`;
const SECONDS = 3;

if (process.argv[2] === '--child') {
  // One load generator of its own for one server: loads it when asked, answers the requests total.
  pinLoadGenerator();
  const pool = await requestPool(userPath);
  process.on('message', async (seconds) => process.send((await load(process.argv[3], pool, seconds)).requests.total));
  process.send('ready');
} else {
  pinLoadGenerator();
  const rounds = Number(process.argv[2] ?? 6);
  const servers = [await startServer('trivial-http'), await startServer('express-bare')];
  const pool = await requestPool(userPath);
  const children = servers.map(({ url }) => fork(fileURLToPath(import.meta.url), ['--child', url]));
  const answer = (child) => new Promise((resolve) => child.once('message', resolve));
  try {
    await Promise.all(children.map(answer));
    const byOne = () => Promise.all(servers.map(({ url }) => load(url, pool, SECONDS).then((result) => result.requests.total)));
    const byTwo = () => Promise.all(children.map((child) => { const total = answer(child); child.send(SECONDS); return total; }));
    const results = { one: [], two: [] };
    for (let round = 0; round < rounds; round++) {
      for (const mode of round % 2 === 0 ? ['one', 'two'] : ['two', 'one']) {
        const before = servers.map(({ child }) => cpuSeconds(child.pid));
        const [trivial, bare] = await (mode === 'one' ? byOne() : byTwo());
        const [trivialCpu, bareCpu] = servers.map(({ child }, i) => cpuSeconds(child.pid) - before[i]);
        const row = { ratio: trivial / bare, perCpu: trivial / trivialCpu / (bare / bareCpu), trivialShare: trivialCpu / SECONDS, bareShare: bareCpu / SECONDS };
        results[mode].push(row);
        console.log(`${mode === 'one' ? 'one process ' : 'two processes'}: trivial/bare ${row.ratio.toFixed(2)} requests, ${row.perCpu.toFixed(2)} per CPU second; CPU share trivial ${row.trivialShare.toFixed(2)}, bare ${row.bareShare.toFixed(2)}`);
      }
    }
    for (const [mode, rows] of Object.entries(results)) {
      const m = (key) => median(rows.map((row) => row[key])).toFixed(2);
      console.log(`median, ${mode === 'one' ? 'one process ' : 'two processes'}: requests ${m('ratio')}, per CPU second ${m('perCpu')}, CPU share trivial ${m('trivialShare')}, bare ${m('bareShare')}`);
    }
  } finally {
    for (const child of children) child.kill();
    for (const { child } of servers) child.kill();
  }
}

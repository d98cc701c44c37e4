import { Agent, request } from 'node:http';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runScript, type ScriptRun } from '../helpers/node-script';

// `make cluster` (examples/cluster) for real: a primary and two workers on 127.0.0.1, each worker
// with its own bearerJwtAcl. Needs the build (`npm run build:ts`): the workers import svcgate/auth.
const PRIMARY = join(__dirname, '../../examples/cluster/primary.mjs');

/** The primary as `CLUSTER_WORKERS=2 PORT=<port> node examples/cluster/primary.mjs` runs it. */
function startPrimary(port: number | string = 0): ScriptRun {
  return runScript(`process.env.CLUSTER_WORKERS = '2'; process.env.PORT = '${port}'; await import(${JSON.stringify(pathToFileURL(PRIMARY).href)});`);
}

interface Answer {
  status: number;
  /** The pid of the worker that answered, from the example's x-worker header (`<slot>/<pid>`). */
  pid: number;
  body: string;
}

/** One GET on a connection of its own, so that node:cluster hands each request to the next worker. */
function get(url: string, token?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { connection: 'close' };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    request(url, { agent: false, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, pid: Number(String(res.headers['x-worker']).split('/')[1]), body }));
    })
      .on('error', reject)
      .end();
  });
}

/** True while a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** The requests of the example's curl lines and their neighbours: allowed, denied, no token, a forged token. */
function requestsOf(url: string, token: string): [string, string | undefined][] {
  const forged = `${token.slice(0, -4)}AAAA`;
  return [
    [`${url}/users/3`, token],
    [`${url}/users/2`, token],
    [`${url}/users/5`, token],
    [`${url}/users`, token],
    [`${url}/users/3`, undefined],
    [`${url}/users/3`, forged],
  ];
}

/**
 * Every request of `requestsOf`, each on new connections until every worker of `pids` has answered
 * it (node:cluster hands connections out in turn, so two tries are the rule; a few more are allowed
 * for a busy machine): per worker, its answers in the order of the requests.
 */
async function answersByWorker(url: string, token: string, pids: number[]): Promise<Map<number, [number, string][]>> {
  const byWorker = new Map<number, [number, string][]>(pids.map((pid) => [pid, []]));
  for (const [target, bearer] of requestsOf(url, token)) {
    const answered = new Map<number, [number, string]>();
    for (let attempt = 0; attempt < 20 && answered.size < pids.length; attempt++) {
      const answer = await get(target, bearer);
      answered.set(answer.pid, [answer.status, answer.body]);
    }
    expect([target, [...answered.keys()].sort()]).toEqual([target, [...pids].sort()]);
    for (const pid of pids) byWorker.get(pid)!.push(answered.get(pid)!);
  }
  return byWorker;
}

let primary: ScriptRun | undefined;
let blocker: Server | undefined;
afterEach(async () => {
  await primary?.stop();
  primary = undefined;
  await new Promise((resolve) => (blocker ? blocker.close(resolve) : resolve(undefined)));
  blocker = undefined;
});

test('two workers take turns on one port, answer alike, survive a killed worker, and all stop on SIGTERM', async () => {
  primary = startPrimary();
  const ready = await primary.line((line) => line.startsWith('listening '));
  const [, url, ...pids] = /^listening (\S+) with 2 workers \(pids (\d+), (\d+)\)$/.exec(ready)!;
  const started = pids.map(Number);
  const token = /Bearer ([^']+)'/.exec(await primary.line((line) => line.includes('/users/3 ')))![1]!;

  // Both workers answered, and each gave the same statuses and bodies for the same requests.
  const before = await answersByWorker(url!, token, started);
  const [first, second] = [...before.values()];
  expect(first).toEqual(second);
  expect(first!.map(([status]) => status)).toEqual([200, 403, 200, 403, 401, 401]);

  // A worker killed outright is forked again in its slot, and the new one answers as the others did.
  const [victim, survivor] = started as [number, number];
  process.kill(victim, 'SIGKILL');
  const forked = await primary.line((line) => line.includes(`(pid ${victim}) died with signal SIGKILL`));
  const replacement = Number(/forked pid (\d+)/.exec(forked)![1]);
  await primary.line((line) => line.includes(`(pid ${replacement}) listening again`));
  expect(alive(victim)).toBe(false);
  const after = await answersByWorker(url!, token, [survivor, replacement]);
  for (const answers of after.values()) expect(answers).toEqual(first);

  // SIGTERM to the primary: it stops both workers and exits 0, and no process of the example is left.
  primary.child.kill('SIGTERM');
  const { code } = await primary.exited;
  expect(code).toBe(0);
  expect([primary.child.pid!, survivor, replacement].filter(alive)).toEqual([]);
}, 60_000);

test('a crash loop is not fed: the sixth unexpected death within a minute stops every worker and exits 1', async () => {
  primary = startPrimary();
  const ready = await primary.line((line) => line.startsWith('listening '));
  const other = Number(/\(pids \d+, (\d+)\)/.exec(ready)![1]);
  let current = Number(/\(pids (\d+),/.exec(ready)![1]);
  for (let death = 1; death <= 5; death++) {
    process.kill(current, 'SIGKILL');
    const forked = await primary.line((line) => line.includes(`(pid ${current}) died with signal SIGKILL; forked pid`));
    current = Number(/forked pid (\d+)/.exec(forked)![1]);
    await primary.line((line) => line.includes(`(pid ${current}) listening again`));
  }
  process.kill(current, 'SIGKILL');
  const { code, stderr } = await primary.exited;
  expect(code).toBe(1);
  expect(stderr).toContain('6 workers died within 60 s');
  expect(primary.lines.filter((line) => line.includes('forked pid'))).toHaveLength(5);
  expect([current, other].filter(alive)).toEqual([]);
}, 60_000);

test('a worker that fails before it listens (the port is taken) is not forked again: the primary exits 1', async () => {
  blocker = createServer();
  const port = await new Promise<number>((resolve) => blocker!.listen(0, '127.0.0.1', () => resolve((blocker!.address() as { port: number }).port)));
  primary = startPrimary(port);
  const { code, stderr } = await primary.exited;
  expect(code).toBe(1);
  expect(stderr).toMatch(/worker \d \(pid \d+\) exited with code 1 before it listened: stopping every worker/);
  // The worker says why in one line, not with an unhandled 'error' event's stack trace.
  expect(stderr).toContain(`cannot listen on 127.0.0.1:${port}: EADDRINUSE`);
  expect(stderr).not.toContain('Unhandled');
  expect(primary.lines.filter((line) => line.includes('forked pid'))).toEqual([]);
}, 60_000);

test('a PORT that is not a port number stops the primary before it forks, saying what it takes', async () => {
  for (const port of ['abc', '70000', '-1']) {
    primary = startPrimary(port);
    const { code, stderr } = await primary.exited;
    expect([port, code, stderr.trim()]).toEqual([port, 2, `PORT must be a port number from 0 to 65535 (0: any free port), not "${port}"`]);
  }
}, 60_000);

/** A GET through `agent`, so that a kept-alive connection is used again: its answer, its connection header and the local port it went out from. */
function getThrough(agent: Agent, url: string, token: string): Promise<Answer & { connection: string | undefined; localPort: number }> {
  return new Promise((resolve, reject) => {
    request(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      const localPort = res.socket.localPort!;
      res.on('end', () => resolve({ status: res.statusCode!, pid: Number(String(res.headers['x-worker']).split('/')[1]), body, connection: res.headers.connection, localPort }));
    })
      .on('error', reject)
      .end();
  });
}

/**
 * A new connection to the port: answered, refused (or reset) because no worker takes it, or no
 * answer within 300 ms (the primary handed it to a worker at the moment that worker stopped, which
 * then holds it until it exits): probing again is the way to learn that every worker has stopped.
 */
function probe(url: string): Promise<'answered' | 'refused' | 'no answer'> {
  return new Promise((resolve) => {
    const probing = request(`${url}/status`, { agent: false, headers: { connection: 'close' }, timeout: 300 }, (res) => {
      res.resume().on('end', () => setTimeout(() => resolve('answered'), 25));
    });
    probing.on('timeout', () => probing.destroy(new Error('no answer')));
    probing.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED' || error.code === 'ECONNRESET' ? 'refused' : 'no answer'));
    probing.end();
  });
}

test('SIGTERM: a kept-alive connection that was idle when its worker stopped still gets its next request answered, with connection: close', async () => {
  primary = startPrimary();
  const ready = await primary.line((line) => line.startsWith('listening '));
  const url = /^listening (\S+) /.exec(ready)![1]!;
  const token = /Bearer ([^']+)'/.exec(await primary.line((line) => line.includes('/users/3 ')))![1]!;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const first = await getThrough(agent, `${url}/users/3`, token);
  expect([first.status, first.connection]).toEqual([200, 'keep-alive']);

  // Stop everything, and wait until no worker takes new connections any more: both have stopped
  // (the primary refuses them once its listening socket is closed, or resets one it accepted just
  // before, when no worker is left to hand it to).
  primary.child.kill('SIGTERM');
  let refused = false;
  for (let attempt = 0; attempt < 200 && !refused; attempt++) refused = (await probe(url)) === 'refused';
  expect(refused).toBe(true);

  // The connection that sat idle is still open (destroying it could reset a request already on its
  // way): the request sent on it is answered by the same worker, which then closes it.
  const second = await getThrough(agent, `${url}/users/3`, token);
  expect(second).toMatchObject({ status: 200, pid: first.pid, connection: 'close', localPort: first.localPort });
  agent.destroy();
  const { code } = await primary.exited;
  expect(code).toBe(0);
}, 60_000);

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

// `make run` starts examples/serve.js and prints curl lines; this runs those lines for real.
const ROOT = join(__dirname, '../..');
let server: ChildProcess;
let printed = '';

beforeAll(async () => {
  server = spawn(process.execPath, [join(ROOT, 'examples/serve.js')], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    server.stdout!.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      if (printed.includes('Bearer not.a.token')) resolve();
    });
    server.once('exit', (code) => reject(new Error(`example exited with ${code}`)));
  });
});
afterAll(() => {
  server.kill();
});

/** Runs one printed `curl -i [-H 'Authorization: ...'] <url>` line with fetch. */
async function curl(line: string): Promise<{ status: number; body: unknown }> {
  const header = /-H 'Authorization: ([^']+)'/.exec(line)?.[1];
  const url = line.split(' ').at(-1)!;
  const response = await fetch(url, { headers: header ? { authorization: header } : {} });
  return { status: response.status, body: await response.json() };
}

test('prints curl lines that answer as their comments say', async () => {
  const lines = printed.split('\n').filter((line) => line.startsWith('curl '));
  expect(lines).toHaveLength(7);
  const statuses = [];
  for (const line of lines) statuses.push((await curl(line)).status);
  expect(statuses).toEqual([200, 403, 200, 200, 200, 403, 401]);
});

test('the seed case: the user token listing 1, 3 and 5 reads exactly those users', async () => {
  const line = printed.split('\n').find((l) => l.includes('/users/3'))!;
  const results: Record<string, number> = {};
  for (const id of ['1', '2', '3', '4', '5', '6', '03']) results[id] = (await curl(line.replace(/\/users\/3$/, `/users/${id}`))).status;
  expect(results).toEqual({ 1: 200, 2: 403, 3: 200, 4: 403, 5: 200, 6: 403, '03': 200 });
});

test('a denial answers JSON with the reason and no stack trace', async () => {
  const line = printed.split('\n').find((l) => l.includes('/users/2'))!;
  expect(await curl(line)).toEqual({ status: 403, body: { error: 'Forbidden', message: 'read:own needs ownership of path parameter userId' } });
});

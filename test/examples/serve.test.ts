import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

// `make run` starts examples/serve.mjs and prints curl lines; this runs those lines for real,
// against both the @oas-tools/core app and the plain Express app.
const ROOT = join(__dirname, '../..');
let server: ChildProcess;
let printed = '';

beforeAll(async () => {
  server = spawn(process.execPath, [join(ROOT, 'examples/serve.mjs')], { cwd: ROOT, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    server.stdout!.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      if ((printed.match(/Bearer not\.a\.token/g) ?? []).length === 2) resolve();
    });
    server.once('exit', (code) => reject(new Error(`the example exited with ${code}`)));
  });
});
afterAll(() => {
  server.kill();
});

/** Runs one printed `curl -i [-X M] [-H 'Authorization: ...'] <url>` line with fetch. */
async function curl(line: string): Promise<{ status: number; body: unknown }> {
  const header = /-H 'Authorization: ([^']+)'/.exec(line)?.[1];
  const method = /-X (\w+)/.exec(line)?.[1] ?? 'GET';
  const url = line.split(' ').at(-1)!;
  const response = await fetch(url, { method, headers: header ? { authorization: header } : {} });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

const blocks = () => printed.split('\n# http').slice(1).map((block) => block.split('\n').filter((line) => line.startsWith('curl ')));

test('prints curl lines for both apps that answer as their comments say', async () => {
  expect(blocks()).toHaveLength(2);
  for (const lines of blocks()) {
    const statuses = [];
    for (const line of lines) statuses.push((await curl(line)).status);
    expect(statuses).toEqual([200, 403, 200, 204, 200, 401, 401]);
  }
});

test('the seed case on both apps: the user token listing 1, 3 and 5 reads exactly those users', async () => {
  for (const lines of blocks()) {
    const line = lines.find((l) => l.endsWith('/users/3'))!;
    const results: Record<string, number> = {};
    for (const id of ['1', '2', '3', '4', '5', '6', '03']) results[id] = (await curl(line.replace(/\/users\/3$/, `/users/${id}`))).status;
    expect(results).toEqual({ 1: 200, 2: 403, 3: 200, 4: 403, 5: 200, 6: 403, '03': 200 });
  }
});

test('the granted attributes reach the handlers: nobody sees the password', async () => {
  for (const lines of blocks()) {
    expect((await curl(lines[0]!)).body).toEqual({ id: 3, name: 'user 3', email: 'u3@example.test' });
    expect((await curl(lines[2]!)).body).toEqual({ id: 4, name: 'user 4', email: 'u4@example.test' });
  }
});

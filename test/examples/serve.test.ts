import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

// `make run` starts examples/serve.mjs, which prints curl lines; this pastes them into a shell as a
// user would, against the @oas-tools/core app, the plain Express app and the SvcApi app.
const ROOT = join(__dirname, '../..');
const shell = promisify(execFile);
let server: ChildProcess;
let printed = '';

beforeAll(async () => {
  server = spawn(process.execPath, [join(ROOT, 'examples/serve.mjs')], { cwd: ROOT, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    server.stdout!.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      if (printed.includes('get-all-accounts')) resolve();
    });
    server.once('exit', (code) => reject(new Error(`the example exited with ${code}`)));
  });
});
afterAll(() => {
  server.kill();
});

/** Runs one printed line in sh, as pasted; returns the status and the JSON body. */
async function curl(line: string): Promise<{ status: number; body: unknown }> {
  const { stdout } = await shell('sh', ['-c', line.replace(/^curl -i /, 'curl -s -i ')]);
  const [head, text] = stdout.split('\r\n\r\n') as [string, string];
  return { status: Number(head.split(' ')[1]), body: text === '' ? undefined : JSON.parse(text) };
}

const blocks = () => printed.split('\n# http').slice(1).map((block) => block.split('\n').filter((line) => line.startsWith('curl ')));

test('library A: the curl lines of both apps answer as their comments say', async () => {
  const [oas, plain] = blocks();
  for (const lines of [oas!, plain!]) {
    const statuses = [];
    for (const line of lines) statuses.push((await curl(line)).status);
    expect(statuses).toEqual([200, 403, 200, 204, 200, 401, 401]);
  }
});

test('library A: the seed case on both apps, the user token listing 1, 3 and 5 reads exactly those users', async () => {
  for (const lines of blocks().slice(0, 2)) {
    const line = lines.find((l) => l.endsWith('/users/3'))!;
    const results: Record<string, number> = {};
    for (const id of ['1', '2', '3', '4', '5', '6', '03']) results[id] = (await curl(line.replace(/\/users\/3$/, `/users/${id}`))).status;
    expect(results).toEqual({ 1: 200, 2: 403, 3: 200, 4: 403, 5: 200, 6: 403, '03': 200 });
  }
});

test('library A: the granted attributes reach the handlers, nobody sees the password', async () => {
  for (const lines of blocks().slice(0, 2)) {
    expect((await curl(lines[0]!)).body).toEqual({ id: 3, name: 'user 3', email: 'u3@example.test' });
    expect((await curl(lines[2]!)).body).toEqual({ id: 4, name: 'user 4', email: 'u4@example.test' });
  }
});

test("library B: the seed's services, the 401 interceptor, the after-interceptor and the error map", async () => {
  const lines = blocks()[2]!;
  const results = [];
  for (const line of lines) results.push(await curl(line));
  expect(results).toEqual([
    { status: 401, body: { error: 'Unauthorized', message: 'send an Authorization header' } },
    { status: 200, body: { id: 1, name: 'Ada' } },
    { status: 201, body: { created: { id: 'acc-1', owner: 'Ada', users: 1 } } },
    { status: 400, body: { error: 'ValidationError', message: 'owner is required' } },
    { status: 200, body: [{ id: 'acc-1', owner: 'Ada', users: 1 }] },
  ]);
});

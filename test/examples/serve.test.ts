import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { serveExamples, type ServedExamples } from '../helpers/serve-examples';

// `make run` starts examples/serve.mjs, which prints curl lines; this pastes them into a shell as a
// user would, against the @oas-tools/core app, the plain Express app and the SvcApi app.
const shell = promisify(execFile);
let server: ServedExamples;
let printed = '';

beforeAll(async () => {
  server = await serveExamples('get-all-accounts');
  printed = server.printed;
});
afterAll(() => {
  server.stop();
});

/** Runs one printed line in sh, as pasted; returns the status and the JSON body. */
async function curl(line: string): Promise<{ status: number; body: unknown }> {
  const { stdout } = await shell('sh', ['-c', line.replace(/^curl -i /, 'curl -s -i ')]);
  const [head, text] = stdout.split('\r\n\r\n') as [string, string];
  return { status: Number(head.split(' ')[1]), body: text === '' ? undefined : JSON.parse(text) };
}

const blocks = () => printed.split('\n# http').slice(1).map((block) => block.split('\n').filter((line) => line.startsWith('curl ')));
/** The base URL of each app, as the example prints it: @oas-tools/core, Express, SvcApi. */
const baseUrls = () => [...printed.matchAll(/^  .+: +(http:\/\/\S+)$/gm)].map((match) => match[1]!);

test('the OpenAPI guard: the curl lines of both apps answer as their comments say', async () => {
  const [oas, plain] = blocks();
  for (const lines of [oas!, plain!]) {
    const statuses = [];
    for (const line of lines) statuses.push((await curl(line)).status);
    expect(statuses).toEqual([200, 403, 200, 204, 200, 401, 401, 401, 403, 200, 403, 200]);
  }
});

test('the OpenAPI guard: the seed case on both apps, the user token listing 1, 3 and 5 reads exactly those users', async () => {
  for (const lines of blocks().slice(0, 2)) {
    const line = lines.find((l) => l.endsWith('/users/3'))!;
    const results: Record<string, number> = {};
    for (const id of ['1', '2', '3', '4', '5', '6', '03']) results[id] = (await curl(line.replace(/\/users\/3$/, `/users/${id}`))).status;
    expect(results).toEqual({ 1: 200, 2: 403, 3: 200, 4: 403, 5: 200, 6: 403, '03': 200 });
  }
});

test('the OpenAPI guard: the granted attributes reach the handlers, nobody sees the password', async () => {
  for (const lines of blocks().slice(0, 2)) {
    expect((await curl(lines[0]!)).body).toEqual({ id: 3, name: 'user 3', email: 'u3@example.test' });
    expect((await curl(lines[2]!)).body).toEqual({ id: 4, name: 'user 4', email: 'u4@example.test' });
  }
});

test("services as routes: the seed's services behind svcAcl, the after-interceptor and the error map", async () => {
  const lines = blocks()[2]!;
  const results = [];
  for (const line of lines) results.push(await curl(line));
  expect(results).toEqual([
    { status: 200, body: { status: 'ok' } },
    { status: 401, body: { error: 'Unauthorized', message: 'this operation needs a bearer token', code: 'ERR_SVCGATE_NO_CREDENTIALS' } },
    { status: 200, body: { id: 1, name: 'Ada' } },
    { status: 403, body: { error: 'Forbidden', message: 'no role of the caller is granted create on /api/user-service/create-user', code: 'ERR_SVCGATE_FORBIDDEN' } },
    { status: 201, body: { created: { id: 'acc-1', owner: 'Ada', users: 1 } } },
    { status: 400, body: { error: 'ValidationError', message: 'owner is required' } },
    { status: 200, body: { id: 'acc-1', owner: 'Ada', users: 1 } },
    { status: 403, body: { error: 'Forbidden', message: 'read:own needs ownership of query parameter accountId', code: 'ERR_SVCGATE_FORBIDDEN' } },
    { status: 200, body: [{ id: 'acc-1', owner: 'Ada', users: 1 }] },
  ]);
});

// Issue 10, finding 11: the built-in anonymous default opened the user list, passwords included,
// to callers without a token and to tokens without a role claim. The example ACLs declare anonymous.
test('the user list needs a token on all three apps; a token without a role claim is refused', async () => {
  const [oas, plain, svc] = baseUrls() as [string, string, string];
  // The token without a role claim that the example prints for the users list.
  const noRole = blocks()[0]!.find((line) => line.endsWith('/users') && line.includes('Bearer'))!.match(/Bearer ([^']+)'/)![1]!;
  // SvcApi serves the seed's services, not the users API: its user list is /user-service/list-users.
  for (const users of [`${oas}/users`, `${plain}/users`, `${svc}/user-service/list-users`]) {
    const anonymous = await fetch(users);
    expect([users, anonymous.status, anonymous.headers.get('www-authenticate')]).toEqual([users, 401, 'Bearer']);
    expect(await anonymous.text()).not.toContain('password');
    const withoutRole = await fetch(users, { headers: { authorization: `Bearer ${noRole}` } });
    expect([users, withoutRole.status]).toEqual([users, 403]);
    expect(await withoutRole.text()).not.toContain('password');
  }
});

test('the public status needs no token on all three apps', async () => {
  const [oas, plain, svc] = baseUrls() as [string, string, string];
  for (const status of [`${oas}/status`, `${plain}/status`, `${svc}/status-service/get-status`]) {
    const response = await fetch(status);
    expect([status, response.status, await response.json()]).toEqual([status, 200, { status: 'ok' }]);
  }
});

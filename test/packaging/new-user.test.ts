import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SignJWT } from 'jose';
import { freePort } from '../helpers/opa-server';
import { installPackedProject, versionOf } from '../helpers/packed-project';
import { parseXml } from '../helpers/parse-xml';

// Issue 28 as a new user meets it: a project outside the repository with the packed tarball,
// Express and the OpenTelemetry SDK installed from npm, plain ESM files written from the README
// and docs (test/fixtures/new-user) importing only svcgate's public subpaths, beside the quick
// start's openapi.yaml and permissions.yaml. Each point runs there as the user would run it: the
// app's own error handler with errors: 'next', problem+json, a node:test route test with
// createTestIssuer alone, `svcgate test` through the installed bin, and the SDK's spans and a
// Prometheus scrape.
const ROOT = join(__dirname, '../..');
const SECRET = 'a-new-user-secret-of-at-least-32-bytes';
let project: string;
const started: ChildProcess[] = [];

beforeAll(() => {
  // One install for the whole file, at the versions this repository tests with.
  const packages = ['express', '@opentelemetry/api', '@opentelemetry/sdk-trace-base', '@opentelemetry/sdk-metrics', '@opentelemetry/exporter-prometheus'];
  project = installPackedProject('new-user', packages.map((name) => `${name}@${versionOf(name)}`));
  for (const file of ['openapi.yaml', 'permissions.yaml']) cpSync(join(ROOT, 'examples/quickstart', file), join(project, file));
  cpSync(join(ROOT, 'test/fixtures/new-user'), project, { recursive: true });
}, 300_000);

afterAll(() => {
  for (const child of started) child.kill();
  rmSync(dirname(project), { recursive: true, force: true });
});

/** Starts `script` in the project and resolves with the JSON of the first line it prints. */
async function start(script: string, env: Record<string, string> = {}): Promise<Record<string, number>> {
  const child = spawn(process.execPath, [script], { cwd: project, env: { ...process.env, JWT_SECRET: SECRET, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      const line = output.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line !== undefined) resolve(JSON.parse(line) as Record<string, number>);
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${output}`)));
  });
}

/** Runs a command of the project to its end: exit code and output, never a throw. */
function run(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: project, env: { ...process.env, NODE_OPTIONS: '' } }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
  });
}

const sign = (claims: Record<string, unknown>, expiresIn = '5m') =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuer('https://issuer.example').setAudience('https://api.example').setIssuedAt().setExpirationTime(expiresIn).sign(new TextEncoder().encode(SECRET));

async function get(url: string, token?: string): Promise<{ status: number; type: string | null; challenge: string | null; body: unknown }> {
  const response = await fetch(url, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  return { status: response.status, type: response.headers.get('content-type'), challenge: response.headers.get('www-authenticate'), body: await response.json() };
}

const OWNER_OF_1_AND_3 = { sub: 'u1', role: 'user', userId: [1, 3] };

describe("errors: 'next' and 'problem'", () => {
  let ports: Record<string, number>;
  beforeAll(async () => {
    ports = await start('errors.mjs');
  });

  test("'next': the app's error handler gets the UnauthorizedError of a request without a token, the challenge already on the response, and its answer is the client's", async () => {
    expect(await get(`http://127.0.0.1:${ports.next}/users/1`)).toEqual({
      status: 401,
      type: 'application/json; charset=utf-8',
      challenge: 'Bearer',
      body: {
        handledBy: 'the app',
        name: 'UnauthorizedError',
        unauthorized: true,
        forbidden: false,
        isError: true,
        status: 401,
        code: 'ERR_SVCGATE_NO_CREDENTIALS',
        message: 'this operation needs a bearer token',
        headers: { 'WWW-Authenticate': ['Bearer'] },
        challengeOnResponse: ['Bearer'],
        reasons: ['no role of the caller is granted read on /users/{userId}'],
      },
    });
  });

  test("'next': an expired token's UnauthorizedError carries jose's code and the invalid_token challenge", async () => {
    const answer = await get(`http://127.0.0.1:${ports.next}/users/1`, await sign(OWNER_OF_1_AND_3, '-1m'));
    expect(answer).toMatchObject({ status: 401, challenge: expect.stringMatching(/^Bearer error="invalid_token", error_description="/), body: { handledBy: 'the app', name: 'UnauthorizedError', code: 'ERR_JWT_EXPIRED' } });
    expect((answer.body as { headers: unknown }).headers).toEqual({ 'WWW-Authenticate': [answer.challenge] });
  });

  test("'next': a policy deny is a ForbiddenError with the decision's reasons, answered by the app; an allowed request reaches the route", async () => {
    const token = await sign(OWNER_OF_1_AND_3);
    expect(await get(`http://127.0.0.1:${ports.next}/users/2`, token)).toEqual({
      status: 403,
      type: 'application/json; charset=utf-8',
      challenge: null,
      body: {
        handledBy: 'the app',
        name: 'ForbiddenError',
        unauthorized: false,
        forbidden: true,
        isError: true,
        status: 403,
        code: 'ERR_SVCGATE_FORBIDDEN',
        message: 'read:own needs ownership of path parameter userId',
        headers: {},
        challengeOnResponse: null,
        reasons: ['read:own needs ownership of path parameter userId'],
      },
    });
    expect(await get(`http://127.0.0.1:${ports.next}/users/3`, token)).toMatchObject({ status: 200, body: { id: 3 } });
  });

  test("'problem': RFC 9457 application/problem+json answers, with the challenge on the 401", async () => {
    expect(await get(`http://127.0.0.1:${ports.problem}/users/1`)).toEqual({
      status: 401,
      type: 'application/problem+json; charset=utf-8',
      challenge: 'Bearer',
      body: { type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'this operation needs a bearer token', code: 'ERR_SVCGATE_NO_CREDENTIALS' },
    });
    expect(await get(`http://127.0.0.1:${ports.problem}/users/2`, await sign(OWNER_OF_1_AND_3))).toEqual({
      status: 403,
      type: 'application/problem+json; charset=utf-8',
      challenge: null,
      body: { type: 'about:blank', title: 'Forbidden', status: 403, detail: 'read:own needs ownership of path parameter userId', code: 'ERR_SVCGATE_FORBIDDEN' },
    });
  });
});

test('a route test written with createTestIssuer alone passes under node --test: valid 200; expired, wrong key, wrong audience 401', async () => {
  const { code, stdout } = await run(process.execPath, ['--test', '--test-reporter=tap', 'route.test.mjs']);
  expect(stdout).toMatch(/^# tests 4$/m);
  expect(stdout).toMatch(/^# pass 4$/m);
  expect(code).toBe(0);
});

describe('svcgate test through the installed bin', () => {
  const svcgate = (...args: string[]) => run(join(project, 'node_modules/.bin/svcgate'), ['test', ...args]);

  test('a passing suite: exit 0, every case passed, and a JUnit report without failures', async () => {
    const { code, stdout } = await svcgate('permissions.test.yaml', '--junit', 'reports/passing.xml');
    expect(stdout).toMatch(/^4 cases: 4 passed, 0 failed \(/m);
    expect(stdout).toContain('wrote reports/passing.xml\n');
    expect(code).toBe(0);
    const report = await parseXml(join(project, 'reports/passing.xml'));
    expect(report).toMatchObject({ tag: 'testsuites', attributes: { tests: '4', failures: '0', errors: '0' } });
    expect(report.children).toHaveLength(1);
    expect(report.children[0]!.attributes).toMatchObject({ name: 'quick start permissions', tests: '4', failures: '0' });
    expect(report.children[0]!.children.map((testCase) => [testCase.attributes.name, testCase.children.length])).toEqual([
      ['a user reads a user they own, without the password [user13]', 0],
      ['reading user 2, by who asks [user13]', 0],
      ['reading user 2, by who asks [admin]', 0],
      ['reading user 2, by who asks [anonymous]', 0],
    ]);
  });

  test("a failing suite: exit 1, the failed case printed with the decision's reasons, and a failure element in the JUnit report", async () => {
    const { code, stdout } = await svcgate('permissions.failing.test.yaml', '--junit', 'reports/failing.xml');
    expect(stdout).toContain(
      [
        'FAIL  a user reads any user [user13]: GET /users/2 -> 403',
        '      status: expected 200, got 403',
        '      allow: expected true, got false',
        '      decision: deny, role user, possession own, attributes -',
        '      reason: read:own needs ownership of path parameter userId',
      ].join('\n'),
    );
    expect(stdout).toMatch(/^2 cases: 1 passed, 1 failed \(/m);
    expect(code).toBe(1);
    const report = await parseXml(join(project, 'reports/failing.xml'));
    expect(report.attributes).toMatchObject({ tests: '2', failures: '1' });
    const [passed, failed] = report.children[0]!.children;
    expect(passed).toMatchObject({ attributes: { name: 'a user reads a user they own [user13]' }, children: [] });
    expect(failed).toMatchObject({ attributes: { name: 'a user reads any user [user13]', classname: 'a wrong expectation' } });
    expect(failed!.children).toEqual([
      {
        tag: 'failure',
        attributes: { type: 'PermissionMismatch', message: 'status: expected 200, got 403; allow: expected true, got false' },
        text: expect.stringContaining('reason: read:own needs ownership of path parameter userId'),
        children: [],
      },
    ]);
  });
});

describe('telemetry through the real OpenTelemetry SDK', () => {
  let app: string;
  let metricsPort: number;
  beforeAll(async () => {
    metricsPort = await freePort();
    app = `http://127.0.0.1:${(await start('telemetry.mjs', { METRICS_PORT: String(metricsPort) })).app}`;
  });

  test('a svcgate.decide span per decision, with its attributes, and the svcgate metrics in a Prometheus scrape on 127.0.0.1', async () => {
    const token = await sign(OWNER_OF_1_AND_3);
    expect((await get(`${app}/users/3`, token)).status).toBe(200);
    expect((await get(`${app}/users/2`, token)).status).toBe(403);
    expect((await get(`${app}/users/3`, await sign(OWNER_OF_1_AND_3, '-1m'))).status).toBe(401);

    const spans = (await get(`${app}/finished-spans`)).body as { name: string; attributes: Record<string, unknown>; status: { code: number } }[];
    expect(spans.map((span) => span.name)).toEqual(['svcgate.decide', 'svcgate.decide', 'svcgate.decide']);
    const operation = 'GET /users/{userId}';
    expect(spans[0]!.attributes).toMatchObject({ 'svcgate.operation': operation, 'svcgate.result': 'allow', 'svcgate.allow': true, 'svcgate.role': 'user', 'svcgate.possession': 'own', 'svcgate.cache.hit': false });
    expect(spans[0]!.attributes['svcgate.policy.revision']).toEqual(expect.any(String));
    expect(spans[0]!.attributes['svcgate.data.revision']).toEqual(expect.any(String));
    expect(spans[1]!.attributes).toMatchObject({ 'svcgate.operation': operation, 'svcgate.result': 'deny', 'svcgate.allow': false });
    expect(spans[2]!.attributes).toMatchObject({ 'svcgate.operation': operation, 'svcgate.result': 'unauthenticated', 'svcgate.verification.failure': 'ERR_JWT_EXPIRED' });
    expect(spans.map((span) => span.status.code)).toEqual([0, 0, 0]);

    const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(scrape.status).toBe(200);
    const text = await scrape.text();
    const labels = `svcgate_operation="${operation}"`;
    expect(sampleOf(text, 'svcgate_decisions_total', [labels, 'svcgate_result="allow"'])).toBe(1);
    expect(sampleOf(text, 'svcgate_decisions_total', [labels, 'svcgate_result="deny"'])).toBe(1);
    expect(sampleOf(text, 'svcgate_decisions_total', [labels, 'svcgate_result="unauthenticated"'])).toBe(1);
    expect(sampleOf(text, 'svcgate_decision_duration_count', [labels, 'svcgate_result="allow"'])).toBe(1);
    expect(sampleOf(text, 'svcgate_verification_failures_total', [labels, 'svcgate_verification_failure="ERR_JWT_EXPIRED"'])).toBe(1);
  });
});

/** The value of the one sample of `name` whose labels include each of `labels` (`key="value"`), in a Prometheus text scrape. */
function sampleOf(scrape: string, name: string, labels: string[]): number | undefined {
  const lines = scrape.split('\n').filter((line) => line.startsWith(`${name}{`) && labels.every((label) => line.includes(label)));
  return lines.length === 1 ? Number(lines[0]!.slice(lines[0]!.lastIndexOf(' ') + 1)) : undefined;
}

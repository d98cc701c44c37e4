import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { freePort } from '../helpers/opa-server';
import { installPackedProject, MODULE_RESOLUTIONS, typeCheckAll, versionOf } from '../helpers/packed-project';

// A consumer project outside the repository, from the packed tarball, as a user sets one up:
// the @oas-tools/core quick start of the README (examples/quickstart) and one strict
// TypeScript file that uses every subpath (test/fixtures/consumer/app.ts). The TypeScript
// type-checks under each module resolution a user may have (node10 through typesVersions,
// node16, nodenext, bundler); then it is compiled, and its three integrations run on 127.0.0.1.
const ROOT = join(__dirname, '../..');
const SECRET = 'a-consumer-secret-of-at-least-32-bytes';
let project: string;
let reports: Promise<Map<string, string>>;
const started: ChildProcess[] = [];
const SETTINGS = MODULE_RESOLUTIONS;

beforeAll(() => {
  // The versions this repository tests with. @oas-tools/core 3.1 is built for Express 4.
  project = installPackedProject('consumer', [
    `@oas-tools/core@${versionOf('@oas-tools/core')}`,
    `express@${versionOf('express4')}`,
    `typescript@${versionOf('typescript')}`,
    `@types/express@${versionOf('@types/express')}`,
    `@types/node@${versionOf('@types/node')}`,
  ]);
  cpSync(join(ROOT, 'examples/quickstart'), project, { recursive: true });
  cpSync(join(ROOT, 'test/fixtures/consumer'), project, { recursive: true });
  writeFileSync(join(project, 'wrong.ts'), "import { SvcContainer } from 'svcgate/svc';\nclass A { a() { return 1; } }\nconst s: string = new SvcContainer().ofLocal({ a: A }).services().a.a();\nexport { s };\n");
  // Every tsc run of the tests, started here and run side by side (each takes 20 to 30 s): the
  // app under each module resolution, a file with a type error, and the app compiled to run.
  reports = typeCheckAll(project, [
    ...SETTINGS.map(([name, settings]) => ({ name, files: ['app.ts'], settings })),
    { name: 'wrong', files: ['wrong.ts'], settings: SETTINGS[1]![1] },
    { name: 'emit', files: ['app.ts'], settings: { ...SETTINGS[1]![1], noEmit: false, outDir: 'out' } },
  ]);
}, 300_000);

afterAll(() => {
  for (const child of started) child.kill();
});

const report = async (name: string) => (await reports).get(name)!;

/** Starts `script` in the project on a free port and resolves with the first line it prints that matches `wanted` (the host logs lines of its own). */
async function start(script: string, wanted: RegExp): Promise<string> {
  const child = spawn(process.execPath, [script], { cwd: project, env: { ...process.env, JWT_SECRET: SECRET, PORT: String(await freePort()) }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      const line = output.split('\n').find((candidate) => wanted.test(candidate));
      if (line !== undefined) resolve(line);
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${output}`)));
  });
}

const bearer = async (claims: Record<string, unknown>) =>
  `Bearer ${await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuer('https://issuer.example').setAudience('https://api.example').setExpirationTime('5m').sign(new TextEncoder().encode(SECRET))}`;

async function get(url: string, authorization?: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers: authorization === undefined ? {} : { authorization } });
  return { status: response.status, body: await response.json() };
}

describe('types', () => {
  test.each(SETTINGS)('moduleResolution %s: the project type-checks in strict mode', async (name) => {
    expect(await report(name)).toBe('');
  }, 300_000);

  test('a type error in the consumer is reported (the check reads the package types, not any)', async () => {
    expect(await report('wrong')).toMatch(/wrong\.ts\(3,7\): error TS2322: Type 'number' is not assignable to type 'string'/);
  }, 300_000);
});

describe('the three integrations run', () => {
  test.each(['oas-tools.mjs', 'express.mjs'])("the README's quick start %s, as written: JSON answers, owners read their user, others 403, no token 401", async (script) => {
    const url = (await start(script, /^listening on /)).replace(/^listening on /, '');
    expect(await get(`${url}/users/1`, await bearer({ role: 'user', userId: [1] }))).toEqual({ status: 200, body: { id: 1, name: 'user 1' } });
    expect((await get(`${url}/users/2`, await bearer({ role: 'user', userId: [1] }))).status).toBe(403);
    expect(await get(`${url}/users/2`, await bearer({ role: 'admin' }))).toEqual({ status: 200, body: { id: 2, name: 'user 2', password: 'secret' } });
    expect((await get(`${url}/users/1`)).status).toBe(401);
  });

  test("the README's services quick start, as written: the owner reads the account without the pin, with the caller", async () => {
    const url = (await start('services.mjs', /^listening on /)).replace(/^listening on /, '');
    const customer = await bearer({ sub: 'c-1', role: 'customer', accounts: ['a1'] });
    expect(await get(`${url}/api/account-service/get-account?accountId=a1`, customer)).toEqual({ status: 200, body: { accountId: 'a1', owner: 'c-1' } });
    expect((await get(`${url}/api/account-service/get-account?accountId=a2`, customer)).status).toBe(403);
    expect((await get(`${url}/api/account-service/get-account?accountId=a1`)).status).toBe(401);
  });

  test('the TypeScript app, compiled: Express + bearerJwtAcl with req.auth, and SvcApi + svcAcl with the caller in the method', async () => {
    expect(await report('emit')).toBe('');
    const ports = JSON.parse(await start('main.mjs', /^\{/)) as { express: number; svc: number };
    const user = await bearer({ sub: 'u-1', role: 'user', userId: [1] });
    expect(await get(`http://127.0.0.1:${ports.express}/users/1`, user)).toEqual({ status: 200, body: { id: '1', role: 'user' } });
    expect((await get(`http://127.0.0.1:${ports.express}/users/2`, user)).status).toBe(403);
    expect(await get(`http://127.0.0.1:${ports.svc}/api/order-service/get-order`, user)).toEqual({ status: 200, body: { owner: 1, caller: 'u-1' } });
    expect((await get(`http://127.0.0.1:${ports.svc}/api/user-service/get-user?userId=1`, user)).status).toBe(403);
  }, 300_000);
});

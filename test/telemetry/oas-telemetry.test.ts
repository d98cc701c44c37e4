import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOasHost, type OasHost } from '../helpers/oas-host';
import { HS256, token } from '../helpers/tokens';

// SPEC 10.3: BearerJWT inside the real @oas-tools/core records the same svcgate.decide spans as
// the other adapters, its host's 401s included. The host runs in its own process (uses dist/:
// `npm run build:ts` first) with the real SDK preloaded, writing its spans to a file.

const EXAMPLE = join(__dirname, '../../examples/users-api');
const dir = mkdtempSync(join(tmpdir(), 'svcgate-oas-spans-'));
const spanFile = join(dir, 'spans.jsonl');
let host: OasHost;

beforeAll(async () => {
  const env = { NODE_OPTIONS: `--require ${join(__dirname, '../fixtures/with-span-file.cjs')}`, SVCGATE_SPAN_FILE: spanFile };
  host = await startOasHost({ openapi: join(EXAMPLE, 'openapi.yaml'), jwt: HS256, position: 2, acl: { bearerAuth: join(EXAMPLE, 'permissions.yaml') }, customHandler: true }, env);
});
afterAll(() => {
  host?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const spans = () =>
  readFileSync(spanFile, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { name: string; attributes: Record<string, unknown>; status: { code: number } })
    .filter((span) => span.name === 'svcgate.decide');

test('an allowed request, a deny, a token that does not verify and a request without one: one span each', async () => {
  const get = async (path: string, authorization?: string) => (await fetch(`${host.url}/api/v1${path}`, { headers: authorization === undefined ? {} : { authorization } })).status;
  const owner = `Bearer ${await token({ role: 'user', userId: 3 })}`;
  expect(await get('/users/3', owner)).toBe(200);
  expect(await get('/users/4', owner)).toBe(403);
  expect(await get('/users/3', `Bearer ${await token({ role: 'user', userId: 3, exp: Math.floor(Date.now() / 1000) - 60 })}`)).toBe(401);
  expect(await get('/users/3')).toBe(401);

  const operation = 'GET /users/{userId}';
  expect(spans().map((span) => span.attributes)).toEqual([
    expect.objectContaining({ 'svcgate.operation': operation, 'svcgate.result': 'allow', 'svcgate.allow': true, 'svcgate.role': 'user', 'svcgate.possession': 'own', 'svcgate.cache.hit': false }),
    expect.objectContaining({ 'svcgate.operation': operation, 'svcgate.result': 'deny', 'svcgate.allow': false }),
    expect.objectContaining({ 'svcgate.operation': operation, 'svcgate.result': 'unauthenticated', 'svcgate.verification.failure': 'ERR_JWT_EXPIRED' }),
    // The host refuses a request without credentials before svcgate could decide.
    expect.objectContaining({ 'svcgate.operation': operation, 'svcgate.result': 'unauthenticated', 'svcgate.verification.failure': 'ERR_SVCGATE_NO_CREDENTIALS' }),
  ]);
});

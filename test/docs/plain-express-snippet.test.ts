import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { SignJWT } from 'jose';
import { authOf, bearerJwt, bearerJwtAcl, type DecisionLogEvent } from '../../src/auth';
import { listen } from '../helpers/listen';

// The "With plain Express" block of docs/openapi-apis.md, run as written (its imports taken out and
// its given names passed in) on Express 4 and 5, over real HTTP on 127.0.0.1, against a document
// whose operation takes a bearer token or an API key, as the block's otherSchemes expects.
const GUIDE = join(__dirname, '../../docs/openapi-apis.md');
const SECRET = 'a-secret-of-the-plain-express-snippet-32+';
const USERS: Record<string, Record<string, unknown>> = { '3': { id: 3, name: 'Ann', email: 'ann@example.com', password: 'hash' } };
type ExpressApp = { use: (...args: unknown[]) => void; get: (...args: unknown[]) => void };

/** The block's code without its import lines, and the names its `// given:` line asks for. */
function snippet(): { code: string; given: string[] } {
  const guide = readFileSync(GUIDE, 'utf8');
  const section = guide.slice(guide.indexOf('## With plain Express'));
  const block = /```js\n([\s\S]*?)```/.exec(section)![1]!;
  const given = /^\/\/ given: (.*)$/m.exec(block)![1]!.split(',').map((name) => name.trim());
  return { code: block.replace(/^import .*$/gm, ''), given };
}

/** Writes the files the block names (./openapi.yaml, ./permissions.yaml, ./permissions.next.yaml) into a folder of their own. */
function projectFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'svcgate-plain-express-'));
  const openapi = {
    openapi: '3.0.3',
    info: { title: 'users', version: '1' },
    servers: [{ url: '/api/v1' }],
    security: [{ apiKey: [] }, { bearerAuth: [] }],
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
    paths: { '/users/{userId}': { get: { parameters: [{ name: 'userId', in: 'path', required: true, schema: { type: 'integer' } }], responses: { '200': { description: 'one user' } } } } },
  };
  writeFileSync(join(folder, 'openapi.yaml'), dump(openapi));
  const permissions = dump({ anonymous: {}, user: { '/users/{userId}': { 'read:own': ['*', '!password'] } } });
  writeFileSync(join(folder, 'permissions.yaml'), permissions);
  // The block's shadow candidate. The same grants: it never differs, so no divergence event joins
  // the decisions the tests count, and the answers are the ACL's (test/shadow covers divergences).
  writeFileSync(join(folder, 'permissions.next.yaml'), permissions);
  return folder;
}

/** The block, run: its `app`, and the decision log it was given. */
function runSnippet(express: () => ExpressApp): { app: ExpressApp; events: DecisionLogEvent[] } {
  const { code, given } = snippet();
  const events: DecisionLogEvent[] = [];
  const values: Record<string, unknown> = {
    // The block passes checkOwnership, which then decides ownership instead of the claims.
    checkOwnership: (payload: { userId?: unknown }, _binding: string, value: unknown) => payload.userId === value,
    decisionLog: (event: DecisionLogEvent) => events.push(event),
    keys: new Set(['key-of-the-billing-job']),
    loadUser: (id: string) => USERS[id],
  };
  expect(given.sort()).toEqual(Object.keys(values).sort());
  const names = ['express', 'authOf', 'bearerJwt', 'bearerJwtAcl', 'process', ...given];
  const env = { ...process.env, JWT_SECRET: SECRET };
  const cwd = process.cwd();
  // The block names its files relative to the working directory, as an app's start script does; they are read here, once.
  process.chdir(projectFolder());
  try {
    const app = new Function(...names, `${code}\nreturn app;`)(express, authOf, bearerJwt, bearerJwtAcl, { ...process, env }, ...given.map((name) => values[name])) as ExpressApp;
    return { app, events };
  } finally {
    process.chdir(cwd);
  }
}

const bearer = (claims: Record<string, unknown>) =>
  new SignJWT({ iss: 'https://issuer.example', aud: 'https://api.example', exp: Math.floor(Date.now() / 1000) + 600, scope: 'api', ...claims }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));

describe.each([
  ['Express 4', require('express4') as () => ExpressApp],
  ['Express 5', require('express') as () => ExpressApp],
])('the plain-Express block of docs/openapi-apis.md on %s', (_name, express) => {
  let url: string;
  let close: () => Promise<void>;
  let events: DecisionLogEvent[];
  beforeAll(async () => {
    const run = runSnippet(express);
    events = run.events;
    ({ url, close } = await listen(run.app as unknown as RequestListener));
  });
  afterAll(() => close());
  beforeEach(() => events.splice(0));

  test('a request with a known API key (the apiKey alternative) gets 200, sees nothing the ACL did not grant, and is logged', async () => {
    const response = await fetch(`${url}/api/v1/users/3`, { headers: { 'x-api-key': 'key-of-the-billing-job' } });
    expect(response.status).toBe(200);
    // req.auth.filter: the bearer ACL granted such a caller no attribute.
    expect(await response.json()).toEqual({});
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      path: 'svcgate/authz/decision',
      operation: 'GET /users/{userId}',
      input: { operation: 'GET /users/{userId}' },
      result: { allow: true, attributes: [], role: null, reasons: [] },
      other_schemes: ['apiKey'],
    });
    expect(events[0]!.decision_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('the bearer alternative is decided by the ACL, as before', async () => {
    const own = await fetch(`${url}/api/v1/users/3`, { headers: { authorization: `Bearer ${await bearer({ role: 'user', userId: 3 })}` } });
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({ id: 3, name: 'Ann', email: 'ann@example.com' });
    expect((await fetch(`${url}/api/v1/users/3`, { headers: { authorization: `Bearer ${await bearer({ role: 'user', userId: 4 })}` } })).status).toBe(403);
    expect(events.map((event) => [event.result.allow, event.other_schemes])).toEqual([
      [true, undefined],
      [false, undefined],
    ]);
  });

  test('an unknown API key and no token meets neither alternative: 401', async () => {
    expect((await fetch(`${url}/api/v1/users/3`, { headers: { 'x-api-key': 'guessed' } })).status).toBe(401);
    expect((await fetch(`${url}/api/v1/users/3`)).status).toBe(401);
  });
});

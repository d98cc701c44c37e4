import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { BearerJWT, ConfigError, type ShadowStatus } from '../../src/auth';
import { exampleBundle, examplePermissions } from '../helpers/bundles';
import { consumerFixture, withoutUserRead } from '../helpers/consumer-fixture';
import { startOasHost, type OasHost, type OasSetup } from '../helpers/oas-host';
import { HS256, token } from '../helpers/tokens';

// BearerJWT's shadow option inside the real @oas-tools/core 3.1.0 (a child process per
// configuration, spoken to over HTTP on 127.0.0.1), and its ConfigErrors from initialize().

const EXAMPLE = join(__dirname, '../../examples/users-api');
const STANDARD: OasSetup = { openapi: join(EXAMPLE, 'openapi.yaml'), jwt: HS256, position: 2, acl: { bearerAuth: join(EXAMPLE, 'permissions.yaml') }, customHandler: true };
/** The example's permissions with GET /users granted to the user role: the user's 403 there becomes a 200. */
const userListsUsers = (permissions: Record<string, Record<string, Record<string, unknown>>>) => {
  permissions.user!['/users'] = { 'read:any': ['*'] };
};

// Express 4, which @oas-tools/core 3.x hands to register().
const express4 = require('express4') as () => Parameters<BearerJWT['register']>[0];

const fixture = consumerFixture();
const hosts: OasHost[] = [];
afterEach(() => {
  for (const host of hosts.splice(0)) host.stop();
});
async function started(setup: OasSetup): Promise<OasHost> {
  const host = await startOasHost(setup);
  hosts.push(host);
  return host;
}

interface Call {
  method: string;
  path: string;
  authorization?: string;
}

/** The same calls (and tokens) for every host: an owner, a stranger, a user listing users, an admin doing so, a user deleting itself, no token. */
let calls: Call[];
beforeAll(async () => {
  const user = `Bearer ${await token({ role: 'user', userId: 1 })}`;
  calls = [
    { method: 'GET', path: '/api/v1/users/1', authorization: user },
    { method: 'GET', path: '/api/v1/users/2', authorization: user },
    { method: 'GET', path: '/api/v1/users', authorization: user },
    { method: 'GET', path: '/api/v1/users', authorization: `Bearer ${await token({ role: 'admin' })}` },
    { method: 'DELETE', path: '/api/v1/users/1', authorization: user },
    { method: 'GET', path: '/api/v1/users/1' },
  ];
});
/** The calls the guard decides: all but the one without a token, which the security step refuses first. */
const DECIDED = 5;

/** Status, body and challenge of each call, in order. */
async function answers(host: OasHost, list: Call[] = calls): Promise<{ status: number; body: string; challenge: string | null }[]> {
  const seen = [];
  for (const { method, path, authorization } of list) {
    const response = await fetch(`${host.url}${path}`, { method, headers: authorization === undefined ? {} : { authorization } });
    seen.push({ status: response.status, body: await response.text(), challenge: response.headers.get('www-authenticate') });
  }
  return seen;
}

/** Polls the host's BearerJWT.of(app).shadowStatus() until `count` sampled requests were compared, unavailable or failed. */
async function candidateDone(host: OasHost, count: number): Promise<ShadowStatus> {
  for (let poll = 0; poll < 200; poll++) {
    const status = (await host.status())!.shadow!;
    if (status.compared + status.unavailable + status.errors >= count) return status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the candidate did not finish ${count} requests: ${JSON.stringify(await host.status())}`);
}

const shadowEvents = async (host: OasHost) => (await host.calls()).events.filter((event) => event.shadow !== undefined);

describe('use(BearerJWT, { shadow }) in @oas-tools/core', () => {
  let without: Awaited<ReturnType<typeof answers>>;
  beforeAll(async () => {
    const host = await startOasHost(STANDARD);
    try {
      without = await answers(host);
      expect((await host.status())!.shadow).toBeNull();
    } finally {
      host.stop();
    }
    expect(without.map((answer) => answer.status)).toEqual([200, 403, 403, 200, 403, 401]);
  });

  test('a candidate that revokes read:own shows a narrowed divergence in the log and in BearerJWT.of(app).shadowStatus(); every answer is the active policy’s', async () => {
    const host = await started({ ...STANDARD, shadow: { source: examplePermissions(withoutUserRead) } });
    expect(await answers(host)).toEqual(without);
    const status = await candidateDone(host, DECIDED);
    expect(status).toMatchObject({ compared: DECIDED, divergences: 1, changes: { narrowed: 1, widened: 0, changed: 0 }, errors: 0, unavailable: 0 });
    expect(status.byOperation['GET /users/{userId}']).toMatchObject({ compared: 2, divergences: 1, narrowed: 1 });
    expect(status.byRole).toMatchObject({ user: { compared: 4, divergences: 1, narrowed: 1 }, admin: { compared: 1, divergences: 0 } });

    const divergences = await shadowEvents(host);
    expect(divergences).toHaveLength(1);
    expect(divergences[0]).toMatchObject({ operation: 'GET /users/{userId}', result: { allow: true }, shadow: { change: 'narrowed', result: { allow: false }, policy_revision: status.candidate.policy_revision, data_revision: status.candidate.data_revision } });
    expect(status.candidate.data_revision).not.toBe(status.active.data_revision);
    expect(status.examples).toEqual([expect.objectContaining({ decision_id: divergences[0]!.decision_id, operation: 'GET /users/{userId}', role: 'user', change: 'narrowed' })]);
  });

  test('a candidate keyed by its scheme that widens is counted as widened, with the same answers', async () => {
    const host = await started({ ...STANDARD, shadow: { source: examplePermissions(userListsUsers), scheme: 'bearerAuth' } });
    expect(await answers(host)).toEqual(without);
    const status = await candidateDone(host, DECIDED);
    expect(status).toMatchObject({ compared: DECIDED, divergences: 1, changes: { widened: 1, narrowed: 0, changed: 0 } });
    expect(status.byOperation['GET /users']).toMatchObject({ compared: 2, widened: 1 });
    expect(await shadowEvents(host)).toEqual([expect.objectContaining({ result: expect.objectContaining({ allow: false }), shadow: expect.objectContaining({ change: 'widened' }) })]);
  });

  test('with the declaration in x-acl-config, a candidate declaration is merged onto it, as acl is', async () => {
    const document = load(readFileSync(STANDARD.openapi, 'utf8')) as { components: { securitySchemes: { bearerAuth: Record<string, unknown> } } };
    document.components.securitySchemes.bearerAuth['x-acl-config'] = examplePermissions();
    const openapi = join(mkdtempSync(join(tmpdir(), 'svcgate-oas-shadow-')), 'x-acl-config.yaml');
    writeFileSync(openapi, dump(document));
    const { acl: _none, ...inDocument } = { ...STANDARD, openapi };
    const plain = await started(inDocument);
    const sameAnswers = await answers(plain);
    expect(sameAnswers).toEqual(without);
    // Merged, an empty list takes read:own away from users, and nothing else changes (alone, it
    // would declare no admin, whose GET /users would be narrowed too).
    const host = await started({ ...inDocument, shadow: { source: { user: { '/users/{userId}': { 'read:own': [] } } } } });
    expect(await answers(host)).toEqual(sameAnswers);
    const status = await candidateDone(host, DECIDED);
    expect(status).toMatchObject({ compared: DECIDED, divergences: 1, changes: { narrowed: 1 } });
    expect(status.byOperation['GET /users/{userId}']).toMatchObject({ narrowed: 1 });
  });

  test('a bundleConsumer candidate counts unavailable before its first bundle and changes nothing; once its bundle is active it compares', async () => {
    const host = await started({ ...STANDARD, shadow: { bundleUrl: fixture.server.url('bundle.tar.gz') } });
    expect(await answers(host)).toEqual(without);
    expect(await candidateDone(host, DECIDED)).toMatchObject({ compared: 0, unavailable: DECIDED, errors: 0, candidate: { data_revision: '' } });
    expect(await shadowEvents(host)).toEqual([]);

    fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'without-user-read', edit: withoutUserRead }));
    for (let poll = 0; poll < 200 && (await host.status())!.shadow!.candidate.data_revision === ''; poll++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await answers(host)).toEqual(without);
    const status = await candidateDone(host, 2 * DECIDED);
    expect(status).toMatchObject({ compared: DECIDED, divergences: 1, changes: { narrowed: 1 }, unavailable: DECIDED });
    expect(status.candidate.data_revision).not.toBe('');
    expect(await shadowEvents(host)).toEqual([expect.objectContaining({ shadow: expect.objectContaining({ change: 'narrowed', data_revision: status.candidate.data_revision }) })]);
  });

  test('a candidate whose evaluate throws, and one whose decision never settles, change no answer and are counted as errors', async () => {
    const throwing = await started({ ...STANDARD, shadow: { failing: 'throws' } });
    expect(await answers(throwing)).toEqual(without);
    expect(await candidateDone(throwing, DECIDED)).toMatchObject({ compared: 0, errors: DECIDED, lastError: { message: 'candidate store is down' } });

    const hanging = await started({ ...STANDARD, shadow: { failing: 'hangs', timeoutMs: 20 } });
    expect(await answers(hanging)).toEqual(without);
    expect(await candidateDone(hanging, DECIDED)).toMatchObject({ compared: 0, errors: DECIDED, lastError: { message: 'the candidate did not decide within 20 ms' } });
    expect([...(await shadowEvents(throwing)), ...(await shadowEvents(hanging))]).toEqual([]);
  });
});

// Two bearer schemes, each guarding its own operation: the shadow is for one of them.
const responses = { '200': { description: 'ok' } };
const TWO_SCHEMES = {
  openapi: '3.0.3',
  info: { title: 'two schemes', version: '1' },
  components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, partnerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  paths: {
    '/users/{userId}': {
      get: { operationId: 'getUser', 'x-router-controller': 'usersController', security: [{ bearerAuth: [] }], parameters: [{ name: 'userId', in: 'path', required: true, schema: { type: 'integer' } }], responses },
    },
    '/partners/{partnerId}': {
      get: { operationId: 'getPartner', 'x-router-controller': 'partnersController', security: [{ partnerAuth: [] }], parameters: [{ name: 'partnerId', in: 'path', required: true, schema: { type: 'integer' } }], responses },
    },
  },
};
const TWO_ACLS = {
  bearerAuth: { anonymous: {}, user: { '/users/{userId}': { 'read:own': ['*'] } } },
  partnerAuth: { anonymous: {}, partner: { '/partners/{partnerId}': { 'read:own': ['*'] } } },
};
/** The document as @oas-tools/core hands it to initialize (Express paths). */
const HANDED = { ...TWO_SCHEMES, paths: { '/users/:userId': TWO_SCHEMES.paths['/users/{userId}'], '/partners/:partnerId': TWO_SCHEMES.paths['/partners/{partnerId}'] } };

test('with two bearer schemes, a candidate keyed by one of them decides only that scheme’s requests', async () => {
  const openapi = join(mkdtempSync(join(tmpdir(), 'svcgate-oas-shadow-')), 'two-schemes.yaml');
  writeFileSync(openapi, dump(TWO_SCHEMES));
  const setup: OasSetup = { openapi, jwt: HS256, position: 2, acl: TWO_ACLS, bearerSchemes: ['partnerAuth'], customHandler: true };
  const twoCalls = [
    { method: 'GET', path: '/users/1', authorization: `Bearer ${await token({ role: 'user', userId: 1 })}` },
    { method: 'GET', path: '/partners/7', authorization: `Bearer ${await token({ role: 'partner', partnerId: 7 })}` },
  ];
  const plain = await started(setup);
  const without = await answers(plain, twoCalls);
  expect(without.map((answer) => answer.status)).toEqual([200, 200]);

  const host = await started({ ...setup, shadow: { source: { anonymous: {}, partner: {} }, scheme: 'partnerAuth' } });
  expect(await answers(host, twoCalls)).toEqual(without);
  const status = await candidateDone(host, 1);
  expect(status).toMatchObject({ compared: 1, divergences: 1, changes: { narrowed: 1 } });
  expect(Object.keys(status.byOperation)).toEqual(['GET /partners/{partnerId}']);
  // Nothing else is on its way to the candidate: the user's request was never sampled.
  expect(status.skipped).toEqual({ sampling: 0, rate: 0, busy: 0, undecided: 0 });
});

describe('bad shadow options stop BearerJWT.initialize with a ConfigError naming the option', () => {
  const initialize = (config: Record<string, unknown>) => BearerJWT.initialize(structuredClone(HANDED), { acl: TWO_ACLS, ...config });
  const configError = async (config: Record<string, unknown>): Promise<string> => {
    const error = await initialize(config).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  };

  test('settings out of range', async () => {
    expect(await configError({ shadow: { source: { partnerAuth: {} }, sampleRate: -0.1 } })).toContain('<BearerJWT config> at $.shadow.sampleRate: shadow.sampleRate must be from 0 to 1');
    expect(await configError({ shadow: { source: { partnerAuth: {} }, timeoutMs: 1.5 } })).toContain('at $.shadow.timeoutMs');
    expect(await configError({ shadow: { source: { partnerAuth: {} }, every: 2 } })).toContain('at $.shadow');
    expect(await configError({ shadow: {} })).toContain('at $.shadow.source');
  });

  test('an unkeyed candidate with several guarded schemes, or one keyed by a scheme without an ACL, names the fix', async () => {
    const unkeyed = await configError({ shadow: { source: { anonymous: {}, partner: {} } } });
    expect(unkeyed).toContain('at $.shadow.source: the adapter guards several schemes (bearerAuth, partnerAuth)');
    expect(unkeyed).toContain('shadow: { source: { bearerAuth: <candidate> } }');
    const unguarded = await configError({ acl: { bearerAuth: TWO_ACLS.bearerAuth }, shadow: { source: { partnerAuth: {} } } });
    expect(unguarded).toContain('at $.shadow.source.partnerAuth: the scheme partnerAuth has no acl or policy');
  });

  test('a candidate declaration is compiled as acl is: an unknown path is refused at start-up', async () => {
    expect(await configError({ shadow: { source: { partnerAuth: { partner: { '/partner/{partnerId}': { 'read:own': ['*'] } } } } } })).toContain('/partner/{partnerId}');
  });

  test('without shadow, shadowStatus() is null; with it, the instance reports its candidate; BearerJWT.of(app) finds each app’s own', async () => {
    const plain = await initialize({});
    expect(plain.status()).toEqual({ shadow: null });
    const shadowed = await initialize({ shadow: { source: { partnerAuth: TWO_ACLS.partnerAuth }, sampleRate: 0.5 } });
    expect(shadowed.shadowStatus()).toMatchObject({ sampleRate: 0.5, compared: 0, maxPerSecond: null });
    // As @oas-tools/core registers each path's middleware on the app given to initialize.
    const [first, second] = [express4(), express4()];
    expect(BearerJWT.of(first)).toBeUndefined();
    for (const path of Object.keys(HANDED.paths)) {
      plain.register(first, path);
      shadowed.register(second, path);
    }
    expect(BearerJWT.of(first)).toBe(plain);
    expect(BearerJWT.of(second)?.shadowStatus()).toMatchObject({ sampleRate: 0.5 });
  });
});

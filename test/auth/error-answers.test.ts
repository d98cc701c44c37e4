import type { RequestListener } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { z } from 'zod';
import {
  BearerJWT,
  bearerJwt,
  bearerJwtAcl,
  ForbiddenError,
  InsufficientScopeError,
  InvalidRequestError,
  PolicyUnavailableError,
  SvcgateHttpError,
  UnauthorizedError,
  type BearerJwtAclOptions,
  type ErrorAnswers,
} from '../../src/auth';
import { bundleConsumer } from '../../src/fleet';
import { ConfigError } from '../../src/policy';
import { svcAcl, SvcApi, SvcContainer, type SvcAclOptions } from '../../src/svc';
import { createTestIssuer } from '../../src/testing';
import { listen } from '../helpers/listen';
import { startOasHost, type OasHost, type OasSetup } from '../helpers/oas-host';
import { HS256, token } from '../helpers/tokens';

// errors: 'json' | 'problem' | 'next' on the three adapters, over real HTTP on 127.0.0.1: the
// same bad requests to the same API get the same status, headers and body from bearerJwtAcl
// (Express 4 and 5), BearerJWT inside the real @oas-tools/core 3.1.0, and svcAcl on SvcApi; with
// 'next', the app's error handler gets the error instance with its headers already set.
type ExpressApp = { use: (...args: unknown[]) => void; get: (...args: unknown[]) => void };
type ExpressFactory = () => ExpressApp;
const EXPRESS4 = require('express4') as ExpressFactory;
const EXPRESS5 = require('express') as ExpressFactory;

const GET_ACCOUNT = '/api/account-service/get-account';
const GET_ALL = '/api/account-service/get-all-accounts';
/** One API, described for bearerJwtAcl and @oas-tools/core as SvcApi describes AccountService's routes. */
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'accounts', version: '1' },
  security: [{ bearerAuth: [] }],
  components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  paths: {
    [GET_ACCOUNT]: {
      get: {
        operationId: 'getAccount',
        'x-router-controller': 'accountService',
        parameters: [{ name: 'accountId', in: 'query', required: true, schema: { type: 'string' }, 'x-acl-binding': 'accounts' }],
        responses: { '200': { description: 'the account' } },
      },
    },
    [GET_ALL]: { get: { operationId: 'getAllAccounts', 'x-router-controller': 'accountService', security: [{ bearerAuth: ['accounts:read'] }], responses: { '200': { description: 'all accounts' } } } },
  },
};
const OPENAPI = join(mkdtempSync(join(tmpdir(), 'svcgate-error-answers-')), 'accounts.yaml');
writeFileSync(OPENAPI, dump(DOCUMENT));
const ACL = { anonymous: {}, customer: { [GET_ACCOUNT]: { 'read:own': ['*'] }, [GET_ALL]: { 'read:any': ['*'] } } };
const OWNERS = { 'accountService.getAccount': { accountId: 'accounts' } };
/** Closed: a bundleConsumer polling it never activates a bundle, so nothing can decide (503). */
const NO_BUNDLE_URL = 'http://127.0.0.1:9/bundle.tar.gz';
const POLLING = { minDelaySeconds: 0.05, maxDelaySeconds: 0.1 };

class AccountService {
  static schemas = { getAccount: z.object({ accountId: z.string() }) };
  getAccount({ accountId }: { accountId: string }) {
    return { accountId };
  }
  getAllAccounts() {
    return [];
  }
}

const now = () => Math.floor(Date.now() / 1000);
/** Every bundleConsumer the tests start, closed after them (each polls until closed). */
const consumers: { close(): void }[] = [];
const noBundle = () => {
  const consumer = bundleConsumer({ url: NO_BUNDLE_URL, polling: POLLING });
  consumers.push(consumer);
  return consumer;
};
afterAll(() => consumers.forEach((consumer) => consumer.close()));
const customer = () => token({ role: 'customer', accounts: ['acc-1'] });

/** A bad request: the request, and the adapters it applies to (svcAcl has no scopes and no policy source here). */
interface Case {
  path: string;
  authorization?: () => Promise<string>;
  /** Needs the adapter whose decisions come from a bundle that never arrives. */
  unavailable?: boolean;
  /** Scopes come from the OpenAPI document, which svcAcl does not read. */
  scoped?: boolean;
}

const CASES: Record<string, Case> = {
  'no token': { path: `${GET_ACCOUNT}?accountId=acc-1` },
  'another scheme': { path: `${GET_ACCOUNT}?accountId=acc-1`, authorization: async () => 'Basic dXNlcjpwYXNz' },
  'an expired token': { path: `${GET_ACCOUNT}?accountId=acc-1`, authorization: async () => `Bearer ${await token({ role: 'customer', accounts: ['acc-1'], exp: now() - 60 })}` },
  'a policy deny': { path: `${GET_ACCOUNT}?accountId=acc-2`, authorization: async () => `Bearer ${await customer()}` },
  'an insufficient scope': { path: GET_ALL, authorization: async () => `Bearer ${await customer()}`, scoped: true },
  'an invalid request': { path: `${GET_ACCOUNT}?accountId=acc%ZZ1`, authorization: async () => `Bearer ${await customer()}` },
  'the policy unavailable': { path: `${GET_ACCOUNT}?accountId=acc-1`, authorization: async () => `Bearer ${await customer()}`, unavailable: true },
};

const FORBIDDEN = 'access to this operation is denied';
const UNAVAILABLE = 'the authorization policy cannot decide now; retry later';
/** What every adapter answers, in every mode: status, headers, and the error's `error` word, code and caller-safe description. */
const EXPECTED: Record<string, { status: number; challenge: string | null; retryAfter: string | null; error: string; title: string; code: string; description: string | RegExp }> = {
  'no token': { status: 401, challenge: 'Bearer', retryAfter: null, error: 'Unauthorized', title: 'Unauthorized', code: 'ERR_SVCGATE_NO_CREDENTIALS', description: 'this operation needs a bearer token' },
  'another scheme': { status: 401, challenge: 'Bearer', retryAfter: null, error: 'Unauthorized', title: 'Unauthorized', code: 'ERR_SVCGATE_OTHER_SCHEME', description: 'the Authorization header holds credentials of another scheme, not Bearer <token>' },
  'an expired token': { status: 401, challenge: 'Bearer error="invalid_token", error_description="the token has expired"', retryAfter: null, error: 'Unauthorized', title: 'Unauthorized', code: 'ERR_JWT_EXPIRED', description: 'the token has expired' },
  'a policy deny': { status: 403, challenge: null, retryAfter: null, error: 'Forbidden', title: 'Forbidden', code: 'ERR_SVCGATE_FORBIDDEN', description: FORBIDDEN },
  'an insufficient scope': { status: 403, challenge: 'Bearer error="insufficient_scope", scope="accounts:read"', retryAfter: null, error: 'Forbidden', title: 'Forbidden', code: 'ERR_SVCGATE_INSUFFICIENT_SCOPE', description: FORBIDDEN },
  'an invalid request': { status: 400, challenge: null, retryAfter: null, error: 'BadRequest', title: 'Bad Request', code: 'ERR_SVCGATE_TARGET', description: /percent/ },
  'the policy unavailable': { status: 503, challenge: null, retryAfter: '1', error: 'ServiceUnavailable', title: 'Service Unavailable', code: 'ERR_SVCGATE_POLICY_UNAVAILABLE', description: UNAVAILABLE },
};

interface Answer {
  status: number;
  challenge: string | null;
  retryAfter: string | null;
  contentType: string | null;
  body: unknown;
}

async function ask(url: string, which: Case): Promise<Answer> {
  const authorization = await which.authorization?.();
  const response = await fetch(`${url}${which.path}`, { headers: authorization === undefined ? {} : { authorization } });
  const text = await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate'), retryAfter: response.headers.get('retry-after'), contentType: response.headers.get('content-type'), body: text === '' ? undefined : JSON.parse(text) };
}

/** An adapter under test: where to send a case, and the start and stop of its servers. */
interface Adapter {
  name: string;
  urlFor(which: Case): string;
  close(): Promise<void>;
  scopes: boolean;
}

/** An Express app guarded by bearerJwtAcl, with `errors` and the app error handler given. */
async function expressServer(express: ExpressFactory, options: Partial<BearerJwtAclOptions>, errorHandler?: ReturnType<typeof recordingHandler>): Promise<{ url: string; close: () => Promise<void> }> {
  const app = express();
  const base: BearerJwtAclOptions = { openapi: OPENAPI, handler: bearerJwt(HS256), exposeReasons: false, ...options };
  app.use(bearerJwtAcl(base.policy === undefined ? { acl: { bearerAuth: ACL }, ...base } : base));
  app.get(/.*/, (_req: unknown, res: { json: (body: unknown) => void }) => res.json({ ran: true }));
  if (errorHandler) app.use(errorHandler);
  return listen(app as unknown as RequestListener);
}

function svcApi(options: Partial<SvcAclOptions>): SvcApi {
  const base: SvcAclOptions = { handler: bearerJwt(HS256), owners: OWNERS, exposeReasons: false, ...options };
  return new SvcApi().interceptAll(svcAcl(base.policy === undefined ? { acl: ACL, ...base } : base)).from(new SvcContainer().ofLocal(AccountService));
}

async function svcServer(options: Partial<SvcAclOptions>): Promise<{ url: string; close: () => Promise<void> }> {
  return listen(svcApi(options).app as unknown as RequestListener);
}

/** The three adapters with `errors` (undefined: the default), each also served from a bundle that never arrives. */
async function startAdapters(errors: ErrorAnswers | undefined, oasExtra: Partial<OasSetup> = {}): Promise<Adapter[]> {
  const option = errors === undefined ? {} : { errors };
  const pair = async (start: (unavailable: boolean) => Promise<{ url: string; close: () => Promise<void> }>) => {
    const [decided, unavailable] = await Promise.all([start(false), start(true)]);
    return { urlFor: (which: Case) => (which.unavailable ? unavailable.url : decided.url), close: async () => void (await Promise.all([decided.close(), unavailable.close()])) };
  };
  const oas = (unavailable: boolean) =>
    startOasHost({ openapi: OPENAPI, jwt: HS256, position: 2, exposeReasons: false, customHandler: true, ...option, ...oasExtra, ...(unavailable ? { bundleUrl: NO_BUNDLE_URL } : { acl: { bearerAuth: ACL } }) }).then((host) => ({ url: host.url, close: async () => host.stop() }));
  return [
    { name: 'bearerJwtAcl on Express 4', scopes: true, ...(await pair((unavailable) => expressServer(EXPRESS4, { ...option, ...(unavailable ? { policy: { bearerAuth: noBundle() } } : {}) }))) },
    { name: 'bearerJwtAcl on Express 5', scopes: true, ...(await pair((unavailable) => expressServer(EXPRESS5, { ...option, ...(unavailable ? { policy: { bearerAuth: noBundle() } } : {}) }))) },
    { name: 'BearerJWT on @oas-tools/core', scopes: true, ...(await pair(oas)) },
    { name: 'svcAcl on SvcApi', scopes: false, ...(await pair((unavailable) => svcServer({ ...option, ...(unavailable ? { policy: noBundle() } : {}) }))) },
  ];
}

/** Every case each adapter answers, by case name. */
async function answersOf(adapters: Adapter[]): Promise<Map<string, Map<string, Answer>>> {
  const byCase = new Map<string, Map<string, Answer>>();
  for (const [name, which] of Object.entries(CASES)) {
    const answers = new Map<string, Answer>();
    for (const adapter of adapters) if (adapter.scopes || !which.scoped) answers.set(adapter.name, await ask(adapter.urlFor(which), which));
    byCase.set(name, answers);
  }
  return byCase;
}

/** Starts the adapters with `errors` for the tests of one describe block, asks each every case, and stops them after. */
function answersEverywhere(errors: ErrorAnswers | undefined): (name: string) => Map<string, Answer> {
  let adapters: Adapter[];
  let answers: Map<string, Map<string, Answer>>;
  beforeAll(async () => {
    adapters = await startAdapters(errors);
    answers = await answersOf(adapters);
  }, 60_000);
  afterAll(() => Promise.all(adapters.map((adapter) => adapter.close())));
  return (name) => answers.get(name)!;
}

/** Every adapter the case applies to answered it with its status and headers, this content type and this body. */
function expectSameAnswers(name: string, answers: Map<string, Answer>, contentType: string, body: unknown): void {
  const expected = EXPECTED[name]!;
  expect(answers.size).toBe(CASES[name]!.scoped ? 3 : 4);
  for (const [adapter, answer] of answers) {
    expect([adapter, answer]).toEqual([adapter, { status: expected.status, challenge: expected.challenge, retryAfter: expected.retryAfter, contentType, body }]);
  }
  expect(new Set([...answers.values()].map((answer) => JSON.stringify(answer.body))).size).toBe(1);
}

describe.each([
  ["errors: 'json'", 'json' as const],
  ['no errors option (the default)', undefined],
])('%s: one JSON body on every adapter', (_title, errors) => {
  const answers = answersEverywhere(errors);

  test.each(Object.keys(CASES))('%s: the same status, headers and { error, message, code } everywhere', (name) => {
    const expected = EXPECTED[name]!;
    expectSameAnswers(name, answers(name), 'application/json; charset=utf-8', { error: expected.error, message: expect.stringMatching(expected.description), code: expected.code });
  });
});

describe("errors: 'problem': RFC 9457 application/problem+json on every adapter", () => {
  const answers = answersEverywhere('problem');

  test.each(Object.keys(CASES))('%s: type about:blank, the status phrase as title, detail, and code as an extension member', (name) => {
    const expected = EXPECTED[name]!;
    expectSameAnswers(name, answers(name), 'application/problem+json; charset=utf-8', { type: 'about:blank', title: expected.title, status: expected.status, detail: expect.stringMatching(expected.description), code: expected.code });
  });
});

/** What an app error handler saw: the error, and the headers on the response when it got it. */
interface Received {
  error: unknown;
  challenge: unknown;
  retryAfter: unknown;
}

/** The app's error handler: records what it got, answers with its own body. */
function recordingHandler(received: Received[]) {
  return (error: unknown, _req: unknown, res: { getHeader: (name: string) => unknown; status: (code: number) => { json: (body: unknown) => void } }, _next: unknown) => {
    received.push({ error, challenge: res.getHeader('www-authenticate'), retryAfter: res.getHeader('retry-after') });
    res.status((error as { status?: number }).status ?? 500).json({ handledBy: 'app' });
  };
}

/** The class each case's error is an instance of (InsufficientScopeError is a ForbiddenError too). */
const CLASSES: Record<string, [new (...args: never[]) => SvcgateHttpError, string]> = {
  'no token': [UnauthorizedError, 'UnauthorizedError'],
  'another scheme': [UnauthorizedError, 'UnauthorizedError'],
  'an expired token': [UnauthorizedError, 'UnauthorizedError'],
  'a policy deny': [ForbiddenError, 'ForbiddenError'],
  'an insufficient scope': [InsufficientScopeError, 'InsufficientScopeError'],
  'an invalid request': [InvalidRequestError, 'InvalidRequestError'],
  'the policy unavailable': [PolicyUnavailableError, 'PolicyUnavailableError'],
};

/** The error an app handler got, checked against what the case must carry. */
function expectError(name: string, error: unknown): void {
  const expected = EXPECTED[name]!;
  const [type, className] = CLASSES[name]!;
  expect(error).toBeInstanceOf(type);
  expect(error).toBeInstanceOf(SvcgateHttpError);
  expect(error).toBeInstanceOf(Error);
  const refusal = error as SvcgateHttpError;
  expect({ name: refusal.name, status: refusal.status, statusCode: refusal.statusCode, code: refusal.code }).toEqual({ name: className, status: expected.status, statusCode: expected.status, code: expected.code });
  expect(refusal.description).toMatch(expected.description);
  expect(refusal.message).toBe(refusal.description);
  const headers: Record<string, string> = {};
  if (expected.challenge !== null) headers['WWW-Authenticate'] = expected.challenge;
  if (expected.retryAfter !== null) headers['Retry-After'] = expected.retryAfter;
  // A 401 may offer several challenges (a list), which HTTP sends as one comma-separated value.
  expect(Object.fromEntries(Object.entries(refusal.headers).map(([header, value]) => [header, [value].flat().join(', ')]))).toEqual(headers);
  // No stack was captured on the deny path: the one line a logger prints.
  expect(refusal.stack).toBe(`${className}: ${refusal.message}`);
  expect(Object.prototype.toString.call(refusal)).toBe('[object Error]');
}

/**
 * Asks every case (those of an unavailable policy at `unavailableUrl`; the scoped ones only with
 * `scopes`): the app's handler answered each, once, given the case's error, whose headers were on
 * the response before it.
 */
async function expectHandledByApp(decidedUrl: string, unavailableUrl: string, received: Received[], scopes: boolean): Promise<void> {
  for (const [name, which] of Object.entries(CASES)) {
    if (which.scoped && !scopes) continue;
    received.length = 0;
    const answer = await ask(which.unavailable ? unavailableUrl : decidedUrl, which);
    const expected = EXPECTED[name]!;
    expect([name, answer.status, answer.challenge, answer.retryAfter, answer.body]).toEqual([name, expected.status, expected.challenge, expected.retryAfter, { handledBy: 'app' }]);
    expect(received).toHaveLength(1);
    expectError(name, received[0]!.error);
    expect([[received[0]!.challenge ?? []].flat().join(', ') || null, received[0]!.retryAfter ?? null]).toEqual([expected.challenge, expected.retryAfter]);
  }
}

describe("errors: 'next' on bearerJwtAcl: the app's Express error handler answers", () => {
  test.each([
    ['Express 4', EXPRESS4],
    ['Express 5', EXPRESS5],
  ])('%s: the handler gets the instance, with status, code, headers (already on the response) and the decision', async (_name, express) => {
    const received: Received[] = [];
    const decided = await expressServer(express, { errors: 'next' }, recordingHandler(received));
    const unavailable = await expressServer(express, { errors: 'next', policy: { bearerAuth: noBundle() } }, recordingHandler(received));
    try {
      await expectHandledByApp(decided.url, unavailable.url, received, true);
    } finally {
      await decided.close();
      await unavailable.close();
    }
  });

  test('the decision carries every reason for the logs while the description follows exposeReasons', async () => {
    const received: Received[] = [];
    const server = await expressServer(EXPRESS5, { errors: 'next' }, recordingHandler(received));
    try {
      await ask(server.url, CASES['a policy deny']!);
      const error = received[0]!.error as ForbiddenError;
      expect(error.description).toBe(FORBIDDEN);
      expect(error.decision).toMatchObject({ allow: false, reasons: ['read:own needs ownership of query parameter accountId'] });
    } finally {
      await server.close();
    }
  });

  test.each([
    ['Express 4', EXPRESS4],
    ['Express 5', EXPRESS5],
  ])("%s without an error handler of the app: Express's own answers the status, with the challenge", async (_name, express) => {
    const issuer = await createTestIssuer({ alg: 'ES256' });
    const app = express();
    app.use(bearerJwtAcl({ openapi: OPENAPI, handler: issuer.handler(), acl: { bearerAuth: ACL }, errors: 'next' }));
    app.get(/.*/, (_req: unknown, res: { json: (body: unknown) => void }) => res.json({ ran: true }));
    const { url, close } = await listen(app as unknown as RequestListener);
    try {
      const none = await fetch(`${url}${GET_ACCOUNT}?accountId=acc-1`);
      expect([none.status, none.headers.get('www-authenticate')]).toEqual([401, 'Bearer']);
      const expired = await fetch(`${url}${GET_ACCOUNT}?accountId=acc-1`, { headers: { authorization: `Bearer ${await issuer.sign({ role: 'customer', accounts: ['acc-1'] }, { expired: true })}` } });
      expect([expired.status, expired.headers.get('www-authenticate')]).toEqual([401, 'Bearer error="invalid_token", error_description="the token has expired"']);
      const denied = await fetch(`${url}${GET_ACCOUNT}?accountId=acc-2`, { headers: { authorization: `Bearer ${await issuer.sign({ role: 'customer', accounts: ['acc-1'] })}` } });
      expect(denied.status).toBe(403);
      const scoped = await fetch(`${url}${GET_ALL}`, { headers: { authorization: `Bearer ${await issuer.sign({ role: 'customer' })}` } });
      expect([scoped.status, scoped.headers.get('www-authenticate')]).toEqual([403, 'Bearer error="insufficient_scope", scope="accounts:read"']);
      const allowed = await fetch(`${url}${GET_ACCOUNT}?accountId=acc-1`, { headers: { authorization: `Bearer ${await issuer.sign({ role: 'customer', accounts: ['acc-1'] })}` } });
      expect([allowed.status, await allowed.json()]).toEqual([200, { ran: true }]);
    } finally {
      await close();
    }
  });

  test('a path outside the document is a NotFoundError with unknownOperations: deny', async () => {
    const received: Received[] = [];
    const server = await expressServer(EXPRESS5, { errors: 'next' }, recordingHandler(received));
    try {
      const answer = await fetch(`${server.url}/api/elsewhere`);
      expect(answer.status).toBe(404);
      expect(received[0]!.error).toMatchObject({ name: 'NotFoundError', status: 404, code: 'ERR_SVCGATE_NO_OPERATION', description: 'no operation of the API matches GET /api/elsewhere' });
    } finally {
      await server.close();
    }
  });
});

describe("errors: 'next' on svcAcl: the error goes to the app SvcApi is mounted in", () => {
  test("the outer app's error handler gets the instance with its headers set; unmounted, Express's own handler answers the status", async () => {
    const received: Received[] = [];
    const outer = EXPRESS5();
    outer.use(svcApi({ errors: 'next' }).app);
    outer.use(recordingHandler(received));
    const unavailableOuter = EXPRESS5();
    unavailableOuter.use(svcApi({ errors: 'next', policy: noBundle() }).app);
    unavailableOuter.use(recordingHandler(received));
    const decided = await listen(outer as unknown as RequestListener);
    const unavailable = await listen(unavailableOuter as unknown as RequestListener);
    const alone = await svcServer({ errors: 'next' });
    try {
      await expectHandledByApp(decided.url, unavailable.url, received, false);
      const none = await fetch(`${alone.url}${GET_ACCOUNT}?accountId=acc-1`);
      expect([none.status, none.headers.get('www-authenticate')]).toEqual([401, 'Bearer']);
      const denied = await fetch(`${alone.url}${GET_ACCOUNT}?accountId=acc-2`, { headers: { authorization: `Bearer ${await customer()}` } });
      expect(denied.status).toBe(403);
    } finally {
      await Promise.all([decided.close(), unavailable.close(), alone.close()]);
    }
  });

  test("withErrors still maps a refusal's name: its status and { error: name, message }", async () => {
    const api = svcApi({ errors: 'next' }).withErrors({ ForbiddenError: 418 });
    const { url, close } = await listen(api.app as unknown as RequestListener);
    try {
      const denied = await fetch(`${url}${GET_ACCOUNT}?accountId=acc-2`, { headers: { authorization: `Bearer ${await customer()}` } });
      expect([denied.status, await denied.json()]).toEqual([418, { error: 'ForbiddenError', message: FORBIDDEN }]);
    } finally {
      await close();
    }
  });
});

describe("errors: 'next' on @oas-tools/core", () => {
  let started: Adapter[];
  let adapters: Adapter[];
  let withHostHandler: OasHost;
  beforeAll(async () => {
    // The host's error handler answers every error after each path's layers: off, the app's own error middleware gets them.
    started = await startAdapters('next', { hostErrorHandler: false, appErrorHandler: true, customHandler: false });
    adapters = started.filter((adapter) => adapter.name.includes('oas-tools'));
    withHostHandler = await startOasHost({ openapi: OPENAPI, jwt: HS256, position: 2, exposeReasons: false, customHandler: true, errors: 'next', acl: { bearerAuth: ACL } });
  }, 60_000);
  afterAll(async () => {
    // Every adapter started, not only those asked: a server left listening keeps jest from exiting.
    await Promise.all(started.map((adapter) => adapter.close()));
    withHostHandler.stop();
  });

  test.each(Object.keys(CASES))("%s: the app's error middleware gets the instance, its headers already on the response", async (name) => {
    const which = CASES[name]!;
    const answer = await ask(adapters[0]!.urlFor(which), which);
    const expected = EXPECTED[name]!;
    const [, className] = CLASSES[name]!;
    expect([answer.status, answer.challenge, answer.retryAfter]).toEqual([expected.status, expected.challenge, expected.retryAfter]);
    const { received, onResponse } = answer.body as { received: Record<string, unknown>; onResponse: Record<string, unknown> };
    const ancestors = className === 'InsufficientScopeError' ? ['ForbiddenError', 'InsufficientScopeError'] : [className];
    expect(received).toMatchObject({ name: className, status: expected.status, statusCode: expected.status, code: expected.code, message: received.description, stack: `${className}: ${received.description as string}` });
    expect(received.instanceOf).toEqual(expect.arrayContaining(['SvcgateHttpError', 'Error', ...ancestors]));
    expect([[onResponse['www-authenticate'] ?? []].flat().join(', ') || null, onResponse['retry-after']]).toEqual([expected.challenge, expected.retryAfter]);
    if (expected.status === 403 || expected.status === 503) expect((received.decision as { reasons: string[] }).reasons.length).toBeGreaterThan(0);
  });

  test('an error handler that answers later: the controller never runs, and the handler is called once', async () => {
    const host = await startOasHost({ openapi: OPENAPI, jwt: HS256, position: 2, errors: 'next', hostErrorHandler: false, appErrorHandler: 'async', acl: { bearerAuth: ACL } });
    try {
      for (const name of ['no token', 'an expired token', 'a policy deny']) {
        const before = (await host.calls()).calls.length;
        expect((await ask(host.url, CASES[name]!)).status).toBe(EXPECTED[name]!.status);
        expect([name, (await host.calls()).calls.slice(before)]).toEqual([name, [`appErrorHandler ${CLASSES[name]![1]}`]]);
      }
    } finally {
      host.stop();
    }
  });

  test("with the host's error handler on, jwtErrorHandler answers svcgate's errors with their status and the JSON body", async () => {
    for (const name of ['no token', 'an expired token', 'a policy deny', 'an insufficient scope', 'an invalid request']) {
      const answer = await ask(withHostHandler.url, CASES[name]!);
      const expected = EXPECTED[name]!;
      expect([name, answer.status, answer.challenge, answer.body]).toEqual([name, expected.status, expected.challenge, { error: expected.error, message: expect.stringMatching(expected.description), code: expected.code }]);
    }
    // The controller never ran for any of them.
    expect((await withHostHandler.calls()).calls).toEqual([]);
  });
});

describe('the errors option is checked where the adapter is created', () => {
  const wrong = { errors: 'html' };
  const message = "errors must be 'json' (the default), 'problem' (RFC 9457 application/problem+json) or 'next' (the error goes to your Express error handler)";

  test('bearerJwtAcl', () => {
    const create = () => bearerJwtAcl({ openapi: OPENAPI, handler: bearerJwt(HS256), acl: { bearerAuth: ACL }, ...(wrong as object) });
    expect(create).toThrow(ConfigError);
    expect(create).toThrow(`<bearerJwtAcl options> at $.errors: ${message}`);
  });

  test('svcAcl', () => {
    const create = () => svcAcl({ handler: bearerJwt(HS256), acl: ACL, ...(wrong as object) });
    expect(create).toThrow(ConfigError);
    expect(create).toThrow(`<svcAcl options> at $.errors: ${message}`);
  });

  test('BearerJWT', async () => {
    const initialize = BearerJWT.initialize(structuredClone(DOCUMENT), { acl: { bearerAuth: ACL }, ...wrong });
    await expect(initialize).rejects.toThrow(ConfigError);
    await expect(BearerJWT.initialize(structuredClone(DOCUMENT), { acl: { bearerAuth: ACL }, ...wrong })).rejects.toThrow(`<BearerJWT config> at $.errors: ${message}`);
  });
});

describe("what an app's error handler and a custom verifier can reach", () => {
  test("an error handler that adds its own scheme to the error's challenges changes only its own answer", async () => {
    const app = EXPRESS5();
    app.use(bearerJwtAcl({ openapi: OPENAPI, handler: bearerJwt(HS256), acl: { bearerAuth: ACL }, errors: 'next' }));
    app.use((error: SvcgateHttpError, _req: unknown, res: { setHeader: (name: string, value: unknown) => void; status: (code: number) => { end: () => void } }, _next: unknown) => {
      const challenges = error.headers['WWW-Authenticate'] as string[];
      challenges.push('Basic realm="app"');
      res.setHeader('WWW-Authenticate', challenges);
      res.status(error.status).end();
    });
    const { url, close } = await listen(app as unknown as RequestListener);
    try {
      const challenges: (string | null)[] = [];
      for (let i = 0; i < 3; i++) challenges.push((await fetch(`${url}${GET_ACCOUNT}?accountId=acc-1`)).headers.get('www-authenticate'));
      expect(challenges).toEqual(Array(3).fill('Bearer, Basic realm="app"'));
    } finally {
      await close();
    }
  });

  test.each(['json', 'problem', 'next'] as const)("errors: '%s': a custom verifier's code goes out only in the ERR_ form, else as ERR_SVCGATE_INVALID_TOKEN", async (errors) => {
    const codes = ['token eyJhbGciOi of alice@example.com', 'ERR_LOCAL_REVOKED'];
    // The app's own verifier: its codes are whatever it writes, here text from the token.
    const handler = (async (authorization: unknown) => Promise.reject(Object.assign(new Error('refused'), { code: codes[String(authorization).endsWith('a') ? 0 : 1], description: 'the token is refused' }))) as unknown as BearerJwtAclOptions['handler'];
    const app = EXPRESS5();
    app.use(bearerJwtAcl({ openapi: OPENAPI, handler, acl: { bearerAuth: ACL }, errors }));
    app.use((error: SvcgateHttpError, _req: unknown, res: { status: (code: number) => { json: (body: unknown) => void } }, _next: unknown) => res.status(error.status).json({ code: error.code }));
    const { url, close } = await listen(app as unknown as RequestListener);
    try {
      const sent: unknown[] = [];
      for (const authorization of ['Bearer a', 'Bearer b']) {
        const answer = await fetch(`${url}${GET_ACCOUNT}?accountId=acc-1`, { headers: { authorization } });
        expect(answer.status).toBe(401);
        sent.push(((await answer.json()) as { code: unknown }).code);
      }
      expect(sent).toEqual(['ERR_SVCGATE_INVALID_TOKEN', 'ERR_LOCAL_REVOKED']);
    } finally {
      await close();
    }
  });
});

import { request as httpRequest, type IncomingHttpHeaders, type RequestListener } from 'node:http';
import { bearerJwt, bearerJwtAcl, MethodNotAllowedError, SvcgateHttpError, type BearerJwtAclOptions, type ErrorAnswers } from '../../src/auth';
import { svcAcl, SvcApi, SvcContainer } from '../../src/svc';
import { bearerApi } from '../helpers/bearer-api';
import { listen } from '../helpers/listen';
import { HS256, token } from '../helpers/tokens';

// A documented path asked with a method it does not declare, and OPTIONS requests (CORS
// preflights), through bearerJwtAcl on Express 4 and 5 over real HTTP on 127.0.0.1. The CORS
// layer is a hand-written one that answers preflights as the `cors` package does (that package
// is no dependency of svcgate).
type ExpressApp = { use: (...args: unknown[]) => void; get: (...args: unknown[]) => void; post: (...args: unknown[]) => void; patch: (...args: unknown[]) => void; options: (...args: unknown[]) => void };
const EXPRESS: [string, () => ExpressApp][] = [
  ['Express 4', require('express4') as () => ExpressApp],
  ['Express 5', require('express') as () => ExpressApp],
];

const DOCUMENT = {
  ...bearerApi(
    {
      '/users': { get: { responses: { '200': { description: 'all' } } }, post: { responses: { '201': { description: 'created' } } } },
      '/users/{id}': { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], get: { responses: { '200': { description: 'one' } } } },
      '/users/me': { patch: { responses: { '200': { description: 'updated' } } } },
      // An OPTIONS operation of its own (no bearer scheme: the ACL has no action for OPTIONS).
      '/reports': { get: { responses: { '200': { description: 'reports' } } }, options: { security: [], responses: { '204': { description: 'what the reports answer' } } } },
    },
    'methods',
  ),
  servers: [{ url: '/api' }],
};
const ACL = { bearerAuth: { anonymous: {}, user: { '/users': { 'read:any': ['*'], 'create:any': ['*'] }, '/users/{id}': { 'read:any': ['*'] }, '/users/me': { 'update:any': ['*'] }, '/reports': { 'read:any': ['*'] } } } };

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request over node:http, which sends Origin and the preflight headers as given. */
function send(url: string, method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(`${url}${path}`, { method, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

const PREFLIGHT = { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization' };

/** What `cors()` does with its defaults: the origin header on every answer, a preflight answered 204 here. */
function corsLayer(req: { method: string; headers: IncomingHttpHeaders }, res: { setHeader: (name: string, value: string) => void; statusCode: number; end: () => void }, next: () => void) {
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (req.method !== 'OPTIONS') return next();
  res.setHeader('Access-Control-Allow-Methods', 'GET,HEAD,PUT,PATCH,POST,DELETE');
  if (req.headers['access-control-request-headers']) res.setHeader('Access-Control-Allow-Headers', req.headers['access-control-request-headers']);
  res.statusCode = 204;
  res.end();
}

interface Served {
  url: string;
  ran: string[];
  /** What the app's error handler received (errors: 'next'). */
  received: unknown[];
  close: () => Promise<void>;
}

/** The guarded app: its routes record that they ran; `cors` places the CORS layer before or after the guard. */
async function serve(express: () => ExpressApp, options: Partial<BearerJwtAclOptions> & { cors?: 'before' | 'after' } = {}): Promise<Served> {
  const { cors, ...guardOptions } = options;
  const ran: string[] = [];
  const received: unknown[] = [];
  const app = express();
  if (cors === 'before') app.use(corsLayer);
  app.use(bearerJwtAcl({ openapi: DOCUMENT, handler: bearerJwt({ ...HS256, audience: false }), acl: ACL, ...guardOptions }));
  if (cors === 'after') app.use(corsLayer);
  const handler = (name: string) => (_req: unknown, res: { json: (body: unknown) => void }) => {
    ran.push(name);
    res.json({ ran: name });
  };
  app.get('/api/users', handler('listUsers'));
  app.post('/api/users', handler('createUser'));
  app.patch('/api/users/me', handler('updateMe'));
  app.get('/api/users/:id', handler('getUser'));
  app.options('/api/reports', handler('reportsOptions'));
  // Every method: a handler that would run for a request the guard let through.
  app.use(handler('fallthrough'));
  app.use((error: SvcgateHttpError, _req: unknown, res: { status: (code: number) => { json: (body: unknown) => void }; getHeader: (name: string) => unknown }, _next: unknown) => {
    received.push(error);
    res.status(error.status).json({ handledBy: 'app', code: error.code, allow: res.getHeader('allow') ?? null });
  });
  const served = await listen(app as unknown as RequestListener);
  return { url: served.url, ran, received, close: served.close };
}

describe.each(EXPRESS)('bearerJwtAcl on %s', (_name, express) => {
  const servers: Served[] = [];
  const started = async (options: Parameters<typeof serve>[1] = {}) => {
    const served = await serve(express, options);
    servers.push(served);
    return served;
  };
  afterAll(() => Promise.all(servers.map((served) => served.close())));

  test('a documented path with a method it does not declare is 405 with Allow, before any token is read', async () => {
    const { url, ran } = await started();
    const deleted = await send(url, 'DELETE', '/api/users', { Authorization: `Bearer ${await token({ role: 'user' })}` });
    expect(deleted.status).toBe(405);
    expect(deleted.headers.allow).toBe('GET, HEAD, POST');
    expect(JSON.parse(deleted.body)).toEqual({ error: 'MethodNotAllowed', message: '/api/users answers GET, HEAD, POST, not DELETE', code: 'ERR_SVCGATE_METHOD_NOT_ALLOWED' });
    // No token at all: still 405, not 401: the method is wrong whoever asks.
    expect((await send(url, 'PUT', '/API/Users/')).headers.allow).toBe('GET, HEAD, POST');
    expect(ran).toEqual([]);
  });

  test('Allow lists the methods of every documented path the request path matches: /users/me is also /users/{id}', async () => {
    const { url, ran } = await started();
    const put = await send(url, 'PUT', '/api/users/me');
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, HEAD, PATCH');
    expect((await send(url, 'DELETE', '/api/users/7')).headers.allow).toBe('GET, HEAD');
    // The methods it lists are the ones that match: PATCH /users/me and GET /users/me are operations.
    const auth = { Authorization: `Bearer ${await token({ role: 'user' })}` };
    expect((await send(url, 'PATCH', '/api/users/me', auth)).status).toBe(200);
    expect((await send(url, 'GET', '/api/users/me', auth)).status).toBe(200);
    expect(ran).toEqual(['updateMe', 'getUser']);
  });

  test('a path outside the document stays 404, any method', async () => {
    const { url } = await started();
    for (const method of ['GET', 'DELETE', 'OPTIONS']) {
      const answer = await send(url, method, '/api/admin', method === 'OPTIONS' ? PREFLIGHT : {});
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body).code).toBe('ERR_SVCGATE_NO_OPERATION');
    }
    // Outside the server prefix too.
    expect((await send(url, 'DELETE', '/users')).status).toBe(404);
  });

  test.each<[ErrorAnswers, string]>([
    ['problem', 'application/problem+json; charset=utf-8'],
    ['json', 'application/json; charset=utf-8'],
  ])("errors: '%s' answers the 405 in its shape", async (errors, contentType) => {
    const { url } = await started({ errors });
    const answer = await send(url, 'DELETE', '/api/users');
    expect(answer.status).toBe(405);
    expect(answer.headers['content-type']).toBe(contentType);
    expect(answer.headers.allow).toBe('GET, HEAD, POST');
    if (errors === 'problem') expect(JSON.parse(answer.body)).toEqual({ type: 'about:blank', title: 'Method Not Allowed', status: 405, detail: '/api/users answers GET, HEAD, POST, not DELETE', code: 'ERR_SVCGATE_METHOD_NOT_ALLOWED' });
  });

  test("errors: 'next' hands the app's error handler a MethodNotAllowedError, Allow already on the response", async () => {
    const { url, received, ran } = await started({ errors: 'next' });
    const answer = await send(url, 'DELETE', '/api/users');
    expect(answer.status).toBe(405);
    expect(JSON.parse(answer.body)).toEqual({ handledBy: 'app', code: 'ERR_SVCGATE_METHOD_NOT_ALLOWED', allow: 'GET, HEAD, POST' });
    const error = received[0] as MethodNotAllowedError;
    expect(error).toBeInstanceOf(MethodNotAllowedError);
    expect(error).toBeInstanceOf(SvcgateHttpError);
    expect(error).toMatchObject({ name: 'MethodNotAllowedError', status: 405, statusCode: 405, code: 'ERR_SVCGATE_METHOD_NOT_ALLOWED', allowed: ['GET', 'HEAD', 'POST'], headers: { Allow: 'GET, HEAD, POST' } });
    expect(ran).toEqual([]);
  });

  test("unknownOperations: 'pass' passes an undeclared method on, as every request that is no operation", async () => {
    const { url, ran } = await started({ unknownOperations: 'pass' });
    expect((await send(url, 'DELETE', '/api/users')).status).toBe(200);
    expect(ran).toEqual(['fallthrough']);
  });

  test.each(['before', 'after'] as const)('a CORS preflight of a documented path reaches a CORS layer placed %s the guard', async (cors) => {
    const { url, ran } = await started({ cors });
    const answer = await send(url, 'OPTIONS', '/api/users', PREFLIGHT);
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['access-control-allow-headers']).toBe('authorization');
    expect((await send(url, 'OPTIONS', '/api/users/42', PREFLIGHT)).status).toBe(204);
    expect(ran).toEqual([]);
  });

  test('the CORS layer before the guard puts its headers on the 401, 403 and 405 too; after it, only on what the guard lets through', async () => {
    const before = await started({ cors: 'before' });
    const after = await started({ cors: 'after' });
    const guest = `Bearer ${await token({ role: 'guest' })}`;
    for (const [served, expected] of [[before, '*'], [after, undefined]] as const) {
      const noToken = await send(served.url, 'GET', '/api/users', { Origin: 'https://app.example' });
      expect(noToken.status).toBe(401);
      expect(noToken.headers['access-control-allow-origin']).toBe(expected);
      const denied = await send(served.url, 'GET', '/api/users', { Origin: 'https://app.example', Authorization: guest });
      expect(denied.status).toBe(403);
      expect(denied.headers['access-control-allow-origin']).toBe(expected);
      expect((await send(served.url, 'DELETE', '/api/users', { Origin: 'https://app.example' })).headers['access-control-allow-origin']).toBe(expected);
    }
  });

  test('a plain OPTIONS request of a documented path goes on undecided: without a CORS layer, to the app (here its catch-all handler)', async () => {
    const { url, ran } = await started();
    const answer = await send(url, 'OPTIONS', '/api/users');
    expect(answer.status).toBe(200);
    // A preflight without a CORS layer goes on the same way.
    expect((await send(url, 'OPTIONS', '/api/users/me', PREFLIGHT)).status).toBe(200);
    expect(ran).toEqual(['fallthrough', 'fallthrough']);
  });

  test('a path that declares OPTIONS (without the bearer scheme) gets its own OPTIONS route, preflight or not', async () => {
    const { url, ran } = await started();
    expect((await send(url, 'OPTIONS', '/api/reports')).status).toBe(200);
    expect((await send(url, 'OPTIONS', '/api/reports', PREFLIGHT)).status).toBe(200);
    expect(ran).toEqual(['reportsOptions', 'reportsOptions']);
    // It is listed in the Allow of a method the path does not declare.
    expect((await send(url, 'POST', '/api/reports')).headers.allow).toBe('GET, HEAD, OPTIONS');
  });
});

// SvcApi is the whole app behind its routes: it answers OPTIONS itself (405 with Allow, as any
// method its route does not have), so a CORS layer goes in front of it, where it answers preflights.
describe('SvcApi', () => {
  class ReportService {
    getReport() {
      return { total: 1 };
    }
  }
  const api = () => new SvcApi().interceptAll(svcAcl({ handler: bearerJwt({ ...HS256, audience: false }), acl: { reader: { '/api/report-service/get-report': { 'read:any': ['*'] } } } })).from(new SvcContainer().ofLocal(ReportService));

  test('answers OPTIONS, a preflight too, 405 with Allow; a CORS layer mounted before it answers the preflight', async () => {
    const alone = await listen(api().app as unknown as RequestListener);
    const outer = (require('express') as () => ExpressApp)();
    outer.use(corsLayer);
    outer.use(api().app);
    const behindCors = await listen(outer as unknown as RequestListener);
    try {
      for (const headers of [{}, PREFLIGHT]) {
        const answer = await send(alone.url, 'OPTIONS', '/api/report-service/get-report', headers);
        expect(answer.status).toBe(405);
        expect(answer.headers.allow).toBe('GET, HEAD');
      }
      expect((await send(behindCors.url, 'OPTIONS', '/api/report-service/get-report', PREFLIGHT)).status).toBe(204);
      const noToken = await send(behindCors.url, 'GET', '/api/report-service/get-report', { Origin: 'https://app.example' });
      expect(noToken.status).toBe(401);
      expect(noToken.headers['access-control-allow-origin']).toBe('*');
    } finally {
      await Promise.all([alone.close(), behindCors.close()]);
    }
  });
});

import express from 'express';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl, BearerJWT } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { svcAcl, SvcApi, SvcContainer } from '../../src/svc';
import { listen } from '../helpers/listen';
import { HS256 } from '../helpers/tokens';

// Issue 10, finding 11: the built-in anonymous default (SPEC 3.3) opens every secured GET without
// parameters to callers without a token. bearerJwtAcl and BearerJWT warn about it when they compile
// their ACL at start-up, and refuse to start with `strict: true`; svcAcl has no such default.
const WARNING = 'SVCGATE_ANONYMOUS_DEFAULT';

/** GET /reports has no parameters, so the default opens it; GET /reports/{id} it does not. */
const openapi = {
  openapi: '3.1.0',
  info: { title: 'reports', version: '1' },
  servers: [{ url: '/api' }],
  security: [{ bearerAuth: [] }],
  components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  paths: {
    '/reports': { get: { operationId: 'listReports' } },
    '/reports/{id}': { get: { operationId: 'getReport', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] } },
  },
};
const ACL = { admin: { '/reports/{id}': { 'read:any': ['*'] } } };

/** The messages of the SVCGATE_ANONYMOUS_DEFAULT warnings `run` emits (spied, so not printed). */
async function anonymousWarnings(run: () => unknown): Promise<string[]> {
  const emitted = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  try {
    await run();
    return emitted.mock.calls.filter(([, options]) => (options as { code?: string } | undefined)?.code === WARNING).map(([message]) => String(message));
  } finally {
    emitted.mockRestore();
  }
}

async function configError(run: () => unknown): Promise<ConfigError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('bearerJwtAcl', () => {
  const guard = (options: Record<string, unknown>) => bearerJwtAcl({ openapi, handler: bearerJwt(HS256), acl: { bearerAuth: ACL }, ...options });

  test("warns at start-up with what the default opens, and keeps the seed's rule", async () => {
    let middleware: ReturnType<typeof bearerJwtAcl> | undefined;
    const warnings = await anonymousWarnings(() => (middleware = guard({})));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('read:any, every attribute, on GET /reports.');
    const app = express();
    app.use(middleware!);
    app.get('/api/reports', (_req, res) => res.json([]));
    const { url, close } = await listen(app);
    expect((await request(url).get('/api/reports')).status).toBe(200);
    await close();
  });

  test('strict: true refuses to start; a declared anonymous starts', async () => {
    const error = await configError(() => guard({ strict: true }));
    expect([error.file, error.path]).toEqual(['<inline ACL>', '$.anonymous']);
    expect(error.problem).toMatch(/on GET \/reports$/);
    expect(await anonymousWarnings(() => bearerJwtAcl({ openapi, handler: bearerJwt(HS256), acl: { bearerAuth: { ...ACL, anonymous: {} } }, strict: true }))).toEqual([]);
    expect((await configError(() => guard({ strict: 'yes' }))).message).toContain('strict must be true or false');
  });
});

describe('svcAcl', () => {
  class ReportService {
    listReports() {
      return [];
    }
    deleteReport() {
      return undefined;
    }
  }
  const api = (options: Record<string, unknown>) => {
    const acl = { admin: { '/api/report-service/delete-report': { 'delete:any': ['*'] } }, ...(options.acl as object) };
    return new SvcApi().interceptAll(svcAcl({ handler: bearerJwt(HS256), ...options, acl })).from(new SvcContainer().ofLocal(ReportService));
  };

  // Issue 27: svcAcl has no anonymous default (SPEC 9.6), so it has nothing to warn about.
  test('builds without a warning, also with strict: true, and a GET route without parameters needs a token', async () => {
    expect(await anonymousWarnings(() => api({}).app)).toEqual([]);
    expect(await anonymousWarnings(() => api({ strict: true }).app)).toEqual([]);
    const answer = await request(api({}).app).get('/api/report-service/list-reports');
    expect(answer.status).toBe(401);
  });
});

describe('BearerJWT (the initialize step @oas-tools/core runs at start-up)', () => {
  // @oas-tools/core hands over the dereferenced document with its paths in Express form.
  const hostDocument = { ...openapi, paths: { '/reports': openapi.paths['/reports'], '/reports/:id': openapi.paths['/reports/{id}'] } };

  test('warns at start-up with what the default opens', async () => {
    const warnings = await anonymousWarnings(() => BearerJWT.initialize(hostDocument, { acl: { bearerAuth: ACL } }));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('on GET /reports.');
  });

  test('strict: true in the use() config stops the start; a declared anonymous starts', async () => {
    const error = await configError(() => BearerJWT.initialize(hostDocument, { acl: { bearerAuth: ACL }, strict: true }));
    expect(error.problem).toMatch(/on GET \/reports$/);
    expect(await anonymousWarnings(() => BearerJWT.initialize(hostDocument, { acl: { bearerAuth: { ...ACL, anonymous: {} } }, strict: true }))).toEqual([]);
  });
});

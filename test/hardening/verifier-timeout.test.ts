import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { bearerJwt, type BearerJwtAclOptions, type BearerJwtHandler } from '../../src/auth';
import { svcAcl, SvcApi, SvcContainer } from '../../src/svc';
import { express4, express5, serveGuarded, type ExpressApp } from '../helpers/guarded-express';
import { HS256, token } from '../helpers/tokens';

// SPEC 7.5: no request hangs in any adapter. A verifier other than bearerJwt's (the `handler`
// option takes any function) and an `otherSchemes` check are waited for 5 s per request; past it
// the verifier's request is answered 401 and the check counts as not satisfied, and an answer that
// comes later changes nothing. The cases run side by side, so the file waits the 5 s once.

const WAIT_MS = 5000;

const openapi = {
  openapi: '3.0.3',
  info: { title: 'users', version: '1' },
  servers: [{ url: '/api/v1' }],
  security: [{ bearerAuth: [] }],
  components: {
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
  },
  paths: {
    '/users/{userId}': { get: { parameters: [{ name: 'userId', in: 'path', required: true, schema: { type: 'integer' } }] } },
    '/reports': { get: { security: [{ apiKey: [] }, { bearerAuth: [] }] } },
  },
};
const acl = { bearerAuth: { anonymous: {}, user: { '/users/{userId}': { 'read:own': ['*'] }, '/reports': { 'read:any': ['*'] } } } };

/** A verifier that answers with a valid payload only after `ms`; `answered` settles once it has. */
function lateVerifier(ms: number): { handler: BearerJwtHandler; answered: Promise<void> } {
  let done!: () => void;
  const answered = new Promise<void>((resolve) => (done = resolve));
  const verify = () =>
    new Promise((resolve) =>
      setTimeout(() => {
        resolve({ sub: 'u1', role: 'user', userId: 1 });
        setImmediate(done);
      }, ms),
    );
  return { handler: Object.assign(verify, { challenges: ['Bearer'], ready: async () => undefined }) as unknown as BearerJwtHandler, answered };
}

const never = () => new Promise<boolean>(() => undefined);

const serveExpress = (express: () => ExpressApp, options: Partial<BearerJwtAclOptions>) => serveGuarded(express, { openapi, handler: bearerJwt(HS256), acl, ...options });

class UserService {
  static ran = 0;
  getUser() {
    UserService.ran += 1;
    return { id: 1 };
  }
}

test('a verifier that never answers in time is a 401 after 5 s, an otherSchemes check that never answers is not satisfied, and late answers change nothing', async () => {
  const late = { on4: lateVerifier(WAIT_MS + 300), on5: lateVerifier(WAIT_MS + 300), svc: lateVerifier(WAIT_MS + 300) };
  const on4Server = await serveExpress(express4, { handler: late.on4.handler });
  const on5Server = await serveExpress(express5, { handler: late.on5.handler });
  const withKeyCheck = await serveExpress(express5, { otherSchemes: { apiKey: never } });
  const svcServer = await new SvcApi().interceptAll(svcAcl({ handler: late.svc.handler, acl: { anonymous: {}, user: { '/api/user-service/get-user': { 'read:any': ['*'] } } } })).from(new SvcContainer().ofLocal(UserService)).listen(0);
  const svcUrl = `http://127.0.0.1:${(svcServer.address() as AddressInfo).port}`;
  try {
    const bearer = `Bearer ${await token({ role: 'user', userId: 1 })}`;
    const startedAt = Date.now();
    const [on4, on5, onSvc, keyCheck] = await Promise.all([
      request(on4Server.url).get('/api/v1/users/1').set('Authorization', 'Bearer opaque-token'),
      request(on5Server.url).get('/api/v1/users/1').set('Authorization', 'Bearer opaque-token'),
      request(svcUrl).get('/api/user-service/get-user').set('Authorization', 'Bearer opaque-token'),
      // The key check never answers: after 5 s the request is the bearer alternative's to decide.
      request(withKeyCheck.url).get('/api/v1/reports').set('Authorization', bearer).set('x-api-key', 'k-1'),
    ]);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(WAIT_MS - 100);
    for (const answer of [on4, on5, onSvc]) {
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ error: 'Unauthorized', message: 'the token could not be verified in time', code: 'ERR_SVCGATE_VERIFY_TIMEOUT' });
      expect(answer.headers['www-authenticate']).toContain('error="invalid_token"');
    }
    expect(keyCheck.status).toBe(200);
    expect(withKeyCheck.ran).toEqual(['/api/v1/reports']);

    await Promise.all(Object.values(late).map(({ answered }) => answered));
    expect(on4Server.ran).toEqual([]);
    expect(on5Server.ran).toEqual([]);
    expect(UserService.ran).toBe(0);
  } finally {
    await Promise.all([on4Server.close(), on5Server.close(), withKeyCheck.close(), new Promise((resolve) => svcServer.close(resolve))]);
  }
}, 15_000);

test('a verifier that answers within the limit is used as before', async () => {
  const { handler } = lateVerifier(20);
  const { url, close, ran } = await serveExpress(express5, { handler });
  try {
    expect((await request(url).get('/api/v1/users/1').set('Authorization', 'Bearer opaque-token')).status).toBe(200);
    expect(ran).toEqual(['/api/v1/users/1']);
  } finally {
    await close();
  }
});

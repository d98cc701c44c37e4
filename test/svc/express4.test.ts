import request from 'supertest';
import { z } from 'zod';
import { bearerJwt } from '../../src/auth';
import { svcAcl, SvcApi, SvcContainer } from '../../src/svc';
import { HS256, token } from '../helpers/tokens';

// Express is a peer dependency: SvcApi builds its app with the `express` the app installed. Here
// that is Express 4 (the express4 alias of this repository's dev dependencies), as in an
// @oas-tools/core app; the rest of test/svc runs on Express 5. The packed-project proof is
// test/packaging/peer-express.test.ts.
jest.mock('express', () => jest.requireActual('express4'));
const express4 = jest.requireActual('express4') as typeof import('express') & { request: object };

class OrderError extends Error {
  override name = 'OrderError';
}

class OrderService {
  static schemas = { findOrders: z.object({ limit: z.coerce.number().int().max(50) }) };
  findOrders({ limit }: { limit: number }) {
    return { limit };
  }
  getOrder(argument: Record<string, unknown>) {
    return { argument };
  }
  createOrder(order: { item?: string }) {
    if (order.item === 'none') throw new OrderError('no such item');
    return { created: order.item };
  }
  getSecretOrder() {
    return { id: 'o1', secret: 'pin' };
  }
}

const api = () => new SvcApi({ bodyLimit: 64 }).withErrors({ OrderError: 422 }).from(new SvcContainer().ofLocal(OrderService));

test("the app is Express 4's: SvcApi takes the express the app installed", () => {
  expect(Object.getPrototypeOf((api().app as unknown as { request: object }).request)).toBe(express4.request);
});

test('GET reads the query (coerced by the schema), POST the JSON body; a thrown error is answered by the error map', async () => {
  const app = api().app;
  expect((await request(app).get('/api/order-service/find-orders?limit=7')).body).toEqual({ limit: 7 });
  expect((await request(app).get('/api/order-service/find-orders?limit=70')).status).toBe(400);
  expect((await request(app).post('/api/order-service/create-order').send({ item: 'book' })).body).toEqual({ created: 'book' });
  const refused = await request(app).post('/api/order-service/create-order').send({ item: 'none' });
  expect([refused.status, refused.body.error]).toEqual([422, 'OrderError']);
});

test("the query is read as on Express 5 (the 'simple' parser), not Express 4's nested qs objects", async () => {
  const response = await request(api().app).get('/api/order-service/get-order?filter[status]=open&id=1');
  expect(response.body).toEqual({ argument: { 'filter[status]': 'open', id: '1' } });
});

test('a body over the limit is 413, malformed JSON 400, an unknown path 404, another method 405 with Allow', async () => {
  const app = api().app;
  expect((await request(app).post('/api/order-service/create-order').send({ item: 'x'.repeat(100) })).status).toBe(413);
  expect((await request(app).post('/api/order-service/create-order').set('Content-Type', 'application/json').send('{"item":')).status).toBe(400);
  expect((await request(app).get('/api/order-service/nothing')).status).toBe(404);
  const wrongMethod = await request(app).post('/api/order-service/get-order');
  expect([wrongMethod.status, wrongMethod.headers.allow]).toEqual([405, 'GET, HEAD']);
});

test('interceptors: an async one that rejects is an answer (Express 4 does not catch promises), res.body() replaces the body', async () => {
  const logged: string[] = [];
  const app = new SvcApi({ logError: (message) => logged.push(message) })
    .intercept({ orderService: { createOrder: async () => Promise.reject(new OrderError('refused')) } })
    .interceptAllAfter((_req, res, next) => {
      res.body({ wrapped: res.locals.svc.body });
      next();
    })
    .withErrors({ OrderError: 409 })
    .from(new SvcContainer().ofLocal(OrderService)).app;
  expect((await request(app).get('/api/order-service/find-orders?limit=1')).body).toEqual({ wrapped: { limit: 1 } });
  expect((await request(app).post('/api/order-service/create-order').send({})).status).toBe(409);
  expect(logged).toEqual([]);
});

test('svcAcl on Express 4: no token 401, a role without the grant 403, the granted attributes only', async () => {
  const acl = { anonymous: {}, clerk: { '/api/order-service/get-secret-order': { 'read:any': ['*', '!secret'] } } };
  const app = new SvcApi().interceptAll(svcAcl({ handler: bearerJwt({ ...HS256, audience: false }), acl })).from(new SvcContainer().ofLocal(OrderService)).app;
  expect((await request(app).get('/api/order-service/get-secret-order')).status).toBe(401);
  expect((await request(app).get('/api/order-service/get-secret-order').set('Authorization', `Bearer ${await token({ role: 'guest' })}`)).status).toBe(403);
  const clerk = await request(app).get('/api/order-service/get-secret-order').set('Authorization', `Bearer ${await token({ role: 'clerk' })}`);
  expect([clerk.status, clerk.body]).toEqual([200, { id: 'o1' }]);
});

test('the app mounts under an Express 4 app', async () => {
  const host = express4();
  host.use('/v2', api().app);
  expect((await request(host).get('/v2/api/order-service/find-orders?limit=3')).body).toEqual({ limit: 3 });
});

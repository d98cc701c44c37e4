import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { EXAMPLE_OPENAPI } from '../helpers/bundles';
import { registerInMemorySdk, valueAt, type InMemorySdk } from '../helpers/otel-sdk';
import { HS256, token } from '../helpers/tokens';

// An app may register its SDK after it created its adapters (and after requests were served
// with the API alone): spans and metrics are recorded from then on.

let sdk: InMemorySdk | undefined;
afterAll(() => sdk?.shutdown());

test('spans and metrics start once an SDK is registered, with the adapter created before it, and follow a new one', async () => {
  const app = express();
  app.use(bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt({ ...HS256, audience: false }), acl: { bearerAuth: join(__dirname, '../../examples/users-api/permissions.yaml') } }));
  app.use((_req, res) => res.json({ ok: true }));
  const auth = `Bearer ${await token({ role: 'user', userId: 1 })}`;
  await request(app).get('/api/v1/users/1').set('Authorization', auth).expect(200);

  sdk = registerInMemorySdk();
  await request(app).get('/api/v1/users/1').set('Authorization', auth).expect(200);
  expect(sdk.spans('svcgate.decide').map((span) => span.attributes['svcgate.result'])).toEqual(['allow']);
  expect(valueAt(await sdk.points('svcgate.decisions'), { 'svcgate.operation': 'GET /users/{userId}', 'svcgate.result': 'allow' })).toBe(1);

  // Another SDK in its place: the next decision goes to it.
  await sdk.shutdown();
  sdk = registerInMemorySdk();
  await request(app).get('/api/v1/users/1').set('Authorization', auth).expect(200);
  expect(sdk.spans('svcgate.decide')).toHaveLength(1);
  expect(valueAt(await sdk.points('svcgate.decisions'), { 'svcgate.operation': 'GET /users/{userId}', 'svcgate.result': 'allow' })).toBe(1);
});

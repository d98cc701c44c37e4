import { channel, subscribe, unsubscribe } from 'node:diagnostics_channel';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { EXAMPLE_OPENAPI } from '../helpers/bundles';
import { HS256, token } from '../helpers/tokens';

// SPEC 10.3: the guard's events on diagnostics_channel, for tools without OpenTelemetry (no SDK
// is registered in this file; the fleet's channels are in fleet-telemetry.test.ts).

const ACL = { bearerAuth: join(__dirname, '../../examples/users-api/permissions.yaml') };
const received = { 'svcgate:decision': [] as unknown[], 'svcgate:verification-failure': [] as unknown[] };
const listeners = Object.fromEntries(Object.keys(received).map((name) => [name, (message: unknown) => received[name as keyof typeof received].push(message)]));

beforeEach(() => {
  for (const [name, listener] of Object.entries(listeners)) subscribe(name, listener);
});
afterEach(() => {
  for (const [name, listener] of Object.entries(listeners)) unsubscribe(name, listener);
  for (const list of Object.values(received)) list.length = 0;
});

const app = express();
app.use(bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt({ ...HS256, audience: false }), acl: ACL }));
app.use((_req, res) => res.json({ ok: true }));

test('svcgate:decision: each decision with its result, role, possession, revisions, cache hit and duration', async () => {
  const auth = `Bearer ${await token({ role: 'user', userId: 5 })}`;
  await request(app).get('/api/v1/users/5').set('Authorization', auth).expect(200);
  await request(app).get('/api/v1/users/6').set('Authorization', auth).expect(403);

  expect(received['svcgate:decision']).toEqual([
    {
      operation: 'GET /users/{userId}',
      result: 'allow',
      allow: true,
      role: 'user',
      possession: 'own',
      policyRevision: expect.stringMatching(/^[0-9a-f]{16}$/),
      dataRevision: expect.any(String),
      cacheHit: false,
      durationSeconds: expect.any(Number),
      decision: expect.objectContaining({ allow: true, attributes: ['!password', '*'] }),
    },
    expect.objectContaining({ result: 'deny', allow: false, decision: expect.objectContaining({ reasons: expect.arrayContaining([expect.any(String)]) }) }),
  ]);
  expect(received['svcgate:decision'].every((message) => (message as { durationSeconds: number }).durationSeconds >= 0)).toBe(true);
});

// A decision cache entry is known as a hit when it is served, not when it is stored: a decision
// made once is no hit, the same input asked again is, and another input beside it is not.
test('svcgate:decision: cacheHit is false for a decision just made and true for the same input asked again', async () => {
  const auth = `Bearer ${await token({ role: 'user', userId: 7 })}`;
  await request(app).get('/api/v1/users/7').set('Authorization', auth).expect(200);
  await request(app).get('/api/v1/users/7').set('Authorization', auth).expect(200);
  await request(app).get('/api/v1/users/8').set('Authorization', auth).expect(403);
  await request(app).get('/api/v1/users/8').set('Authorization', auth).expect(403);
  expect(received['svcgate:decision'].map((message) => (message as { cacheHit: boolean }).cacheHit)).toEqual([false, true, false, true]);
});

test('svcgate:verification-failure: the refused token\'s code and the 401\'s description, and no decision', async () => {
  const wrongKey = `Bearer ${await token({ role: 'user', userId: 5 }, 'another-secret-that-is-32-bytes-long')}`;
  await request(app).get('/api/v1/users/5').set('Authorization', wrongKey).expect(401);
  expect(received['svcgate:verification-failure']).toEqual([{ operation: 'GET /users/{userId}', code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED', description: expect.any(String) }]);
  expect(received['svcgate:decision']).toEqual([]);
});

// With every listener gone the guard answers as before and publishes nothing (that a removed
// listener hears nothing is Node's promise; the publish spy is svcgate's side).
test('with every listener unsubscribed, requests are guarded as before and the old listener hears nothing', async () => {
  for (const [name, listener] of Object.entries(listeners)) unsubscribe(name, listener);
  // What svcgate does see: it publishes nothing to a channel without subscribers.
  const publish = jest.spyOn(channel('svcgate:decision'), 'publish');
  try {
    await request(app).get('/api/v1/users/5').set('Authorization', `Bearer ${await token({ role: 'user', userId: 5 })}`).expect(200);
    expect(received['svcgate:decision']).toEqual([]);
    expect(publish).not.toHaveBeenCalled();
  } finally {
    publish.mockRestore();
  }
});

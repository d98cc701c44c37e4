import express from 'express';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl, type DecisionLogEvent } from '../../src/auth';
import { EXAMPLE_OPENAPI, examplePermissions } from '../helpers/bundles';
import { withoutUserRead } from '../helpers/consumer-fixture';
import { HS256, token } from '../helpers/tokens';
import { shadowSettled } from './shadow-apps';

function app(shadow?: Record<string, unknown>) {
  const events: DecisionLogEvent[] = [];
  const guard = bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt(HS256), acl: { bearerAuth: examplePermissions() }, decisionLog: (event) => events.push(event), ...(shadow === undefined ? {} : { shadow: shadow as never }) });
  const served = express();
  served.use(guard);
  served.use((_req, res) => res.json({ ok: true }));
  return { served, guard, events };
}

test('a candidate that revokes read:own shows a narrowed divergence, while the active policy answers', async () => {
  const { served, guard, events } = app({ source: examplePermissions(withoutUserRead) });
  const user = await token({ role: 'user', userId: 1 });
  expect((await request(served).get('/api/v1/users/1').set('Authorization', `Bearer ${user}`)).status).toBe(200);
  expect((await request(served).get('/api/v1/users/2').set('Authorization', `Bearer ${user}`)).status).toBe(403);
  // The candidate decides after each response closes: wait for both, not for a set time.
  const status = await shadowSettled(guard, (counted) => counted.compared === 2);
  expect(status).toMatchObject({ compared: 2, divergences: 1, changes: { narrowed: 1, widened: 0, changed: 0 }, errors: 0 });
  expect(status.byOperation['GET /users/{userId}']).toMatchObject({ compared: 2, divergences: 1, narrowed: 1 });
  expect(status.byRole.user).toMatchObject({ compared: 2, divergences: 1 });
  expect(status.examples).toHaveLength(1);
  const divergence = events.find((event) => event.shadow !== undefined)!;
  expect(divergence.result.allow).toBe(true);
  expect(divergence.shadow).toMatchObject({ change: 'narrowed', result: { allow: false } });
  expect(status.examples[0]!.decision_id).toBe(divergence.decision_id);
  expect(events.filter((event) => event.shadow === undefined)).toHaveLength(2);
});

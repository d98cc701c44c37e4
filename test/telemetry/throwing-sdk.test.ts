import { metrics, trace } from '@opentelemetry/api';
import express from 'express';
import request from 'supertest';
import { join } from 'node:path';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { EXAMPLE_OPENAPI } from '../helpers/bundles';
import { HS256, token } from '../helpers/tokens';

// Telemetry never changes an answer: an SDK whose tracer and meter throw on every call (a
// provider already shut down, an exporter's bug) leaves every status as it is, and is said once.

const ACL = { bearerAuth: join(__dirname, '../../examples/users-api/permissions.yaml') };
const broken = () => {
  throw new Error('exporter bug');
};

afterAll(() => {
  trace.disable();
  metrics.disable();
});

test('a tracer and a meter that throw: the answers are the same, one SVCGATE_TELEMETRY warning', async () => {
  trace.setGlobalTracerProvider({ getTracer: () => ({ startSpan: broken, startActiveSpan: broken }) });
  const counter = { add: broken, record: broken, addCallback: () => undefined, removeCallback: () => undefined };
  metrics.setGlobalMeterProvider({ getMeter: () => ({ createCounter: () => counter, createHistogram: () => counter, createObservableGauge: () => counter }) } as never);
  const warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  try {
    const app = express();
    app.use(bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt({ ...HS256, audience: false }), acl: ACL }));
    app.use((_req, res) => res.json({ ok: true }));
    const user = `Bearer ${await token({ role: 'user', userId: 1 })}`;
    const statuses = [
      (await request(app).get('/api/v1/users/1').set('Authorization', user)).status,
      (await request(app).get('/api/v1/users/2').set('Authorization', user)).status,
      (await request(app).get('/api/v1/users/1').set('Authorization', 'Bearer not.a.token')).status,
    ];
    const warnings = warning.mock.calls.map(([, options]) => (options as { code?: string } | undefined)?.code).filter((code) => code === 'SVCGATE_TELEMETRY');
    expect({ statuses, warnings }).toEqual({ statuses: [200, 403, 401], warnings: ['SVCGATE_TELEMETRY'] });
  } finally {
    warning.mockRestore();
  }
});

import { join } from 'node:path';
import { startOasHost, type OasHost } from '../helpers/oas-host';
import { HS256, token } from '../helpers/tokens';

// SPEC 7.9 on the real @oas-tools/core 3.1.0: a request that meets a security alternative without
// the bearer scheme (an API key the host's handler accepted) is not decided by the ACL, but its
// controller finds res.locals.oas.acl as on every other allowed request (it found none, so a
// controller written for bearer callers failed, or showed the whole record), and it is logged.
const FIXTURE = join(__dirname, '../fixtures/request-reading');

describe('BearerJWT and an apiKey alternative', () => {
  let host: OasHost;
  beforeAll(async () => {
    host = await startOasHost({ openapi: join(FIXTURE, 'openapi.yaml'), jwt: HS256, position: 2, acl: { bearerAuth: join(FIXTURE, 'permissions.yaml') }, apiKeys: { apiKey: ['k-1'] } });
  }, 120_000);
  afterAll(() => host?.stop());

  test('the API key alone: res.locals.oas.acl grants nothing (filter keeps nothing), and a decision-log event names the scheme', async () => {
    const response = await fetch(`${host.url}/api/v1/reports`, { headers: { 'x-api-key': 'k-1' } });
    expect(response.status).toBe(200);
    // The fixture's controller answers acl.filter(record), or the whole record when there is no acl.
    const body = (await response.json()) as { operationId: string; role: unknown; visible: unknown };
    expect([body.operationId, body.role]).toEqual(['listReports', null]);
    expect(body.visible).toEqual({});
    const { events } = await host.calls();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ operation: 'GET /reports', input: { operation: 'GET /reports' }, result: { allow: true, attributes: [], role: null }, other_schemes: ['apiKey'] });
  });

  test('the bearer alternative is decided by the ACL as before, and logged without other_schemes', async () => {
    const response = await fetch(`${host.url}/api/v1/reports`, { headers: { authorization: `Bearer ${await token({ role: 'auditor' })}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ role: 'auditor', visible: { name: 'n', password: 'secret' } });
    const { events } = await host.calls();
    expect(events.at(-1)).toMatchObject({ result: { allow: true, role: 'auditor' } });
    expect(events.at(-1)).not.toHaveProperty('other_schemes');
  });
});

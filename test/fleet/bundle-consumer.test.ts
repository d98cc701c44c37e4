import { readFileSync } from 'node:fs';
import express from 'express';
import request from 'supertest';
import { generateKeyPair, exportPKCS8, exportSPKI } from 'jose';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { bundleConsumer, writeBundle, type BundleConsumer } from '../../src/fleet';
import { compileAcl, ConfigError } from '../../src/policy';
import { policyWasmPath } from '../../src/policy/evaluate/policy-wasm-path';
import { SvcApi, SvcContainer, svcAcl, svcAclOpenApi } from '../../src/svc';
import { startOasHost } from '../helpers/oas-host';
import { BundleServer } from '../helpers/bundle-server';
import { EXAMPLE_OPENAPI, exampleBundle } from '../helpers/bundles';
import { consumerFixture, withoutUserRead } from '../helpers/consumer-fixture';
import { HS256, token } from '../helpers/tokens';

const fixture = consumerFixture();
const { consumer } = fixture;

function guardedApp(policy: BundleConsumer): express.Express {
  const app = express();
  app.get('/healthz', policy.health);
  app.use(bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt(HS256), policy: { bearerAuth: policy } }));
  app.use((_req, res) => res.json({ ok: true }));
  return app;
}

const tempDir = () => fixture.tempDir();

const userOwning1 = () => token({ role: 'user', userId: 1 });

describe('bundleConsumer', () => {
  test('before the first activation guarded requests get 503 with Retry-After and the health probe says not ready', async () => {
    const { policy, next } = consumer();
    const app = guardedApp(policy);
    await next('failed');
    const answer = await request(app).get('/api/v1/users/1').set('Authorization', `Bearer ${await userOwning1()}`);
    expect(answer.status).toBe(503);
    expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(answer.body).toEqual({ error: 'ServiceUnavailable', message: 'no policy bundle has been activated yet', code: 'ERR_SVCGATE_POLICY_UNAVAILABLE' });
    // Public operations (security: []) are the policy's to decide too: without it, 503 as well.
    expect((await request(app).get('/api/v1/status')).status).toBe(503);
    const health = await request(app).get('/healthz');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ ready: false, revision: null, lastError: { code: 'ERR_SVCGATE_BUNDLE_DOWNLOAD' } });
    expect(health.body.lastError.message).toContain('answered 404');
  });

  test('activates a published bundle, answers 304 polls without downloading again, and switches to a new revision', async () => {
    const { policy, next } = consumer();
    const app = guardedApp(policy);
    fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
    const activated = await next('activated');
    expect(activated.status).toMatchObject({ ready: true, revision: 'v1', activatedFrom: 'server', lastError: null });
    const user = await userOwning1();
    expect((await request(app).get('/api/v1/users/1').set('Authorization', `Bearer ${user}`)).status).toBe(200);
    expect((await request(app).get('/api/v1/users/2').set('Authorization', `Bearer ${user}`)).status).toBe(403);

    await next('unchanged');
    expect(fixture.server.log.filter((line) => line === '304 /bundle.tar.gz').length).toBeGreaterThan(0);
    expect(fixture.server.log.filter((line) => line === '200 /bundle.tar.gz')).toHaveLength(1);

    fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v2', edit: withoutUserRead }));
    expect((await next('activated')).status.revision).toBe('v2');
    expect((await request(app).get('/api/v1/users/1').set('Authorization', `Bearer ${user}`)).status).toBe(403);
    expect(policy.bundles).toEqual({ svcgate: { revision: 'v2' } });
    expect((await request(app).get('/healthz')).body).toMatchObject({ ready: true, revision: 'v2' });
  });

  test('a server without ETags: the same bytes downloaded again are not activated again', async () => {
    const plain = new BundleServer({ etag: false });
    await plain.start();
    try {
      const { policy, events, next } = consumer({ url: plain.url('bundle.tar.gz') });
      plain.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
      await next('activated');
      await next('unchanged');
      expect(plain.log.filter((line) => line === '200 /bundle.tar.gz').length).toBeGreaterThan(1);
      expect(events.filter((event) => event.type === 'activated')).toHaveLength(1);
      expect(policy.status()).toMatchObject({ ready: true, revision: 'v1' });
      plain.publish('bundle.tar.gz', await exampleBundle({ revision: 'v2' }));
      expect((await next('activated')).status.revision).toBe('v2');
    } finally {
      await plain.stop();
    }
  });

  test('keeps the last good bundle when the server goes away, and says why in the status', async () => {
    const { policy, next } = consumer();
    const app = guardedApp(policy);
    fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
    await next('activated');
    await fixture.server.stop();
    const failed = await next('failed');
    expect(failed.status).toMatchObject({ ready: true, revision: 'v1' });
    expect(failed.error.message).toMatch(/cannot be reached \(ECONNREFUSED\)/);
    expect((await request(app).get('/api/v1/users/1').set('Authorization', `Bearer ${await userOwning1()}`)).status).toBe(200);
  });

  test('with a verification key, refuses an unsigned bundle and one signed with another key, keeping the last good', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    const other = await generateKeyPair('RS256', { extractable: true });
    const signing = { key: await exportPKCS8(privateKey), algorithm: 'RS256' as const };
    const { policy, next } = consumer({ verification: { key: await exportSPKI(publicKey), algorithm: 'RS256' } });
    const app = guardedApp(policy);

    fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'unsigned' }));
    expect((await next('failed')).status.revision).toBeNull();
    expect((await request(app).get('/api/v1/users/1').set('Authorization', `Bearer ${await userOwning1()}`)).status).toBe(503);

    fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1', signing }));
    expect((await next('activated')).status.revision).toBe('v1');

    fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'forged', edit: withoutUserRead, signing: { key: await exportPKCS8(other.privateKey), algorithm: 'RS256' } }));
    const refused = await next('failed');
    expect(refused.status.revision).toBe('v1');
    expect(refused.error.code).toMatch(/^ERR_SVCGATE_BUNDLE/);
    expect((await request(app).get('/api/v1/users/1').set('Authorization', `Bearer ${await userOwning1()}`)).status).toBe(200);
  });

  test('refuses a bundle compiled for other operations and lists the differences', async () => {
    const otherApi = {
      openapi: '3.0.3',
      info: { title: 'other', version: '1' },
      security: [{ bearerAuth: [] }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
      paths: { '/users/{userId}': { get: { parameters: [{ name: 'userId', in: 'path', required: true, schema: { type: 'string' } }] } } },
    };
    fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'other', openapi: otherApi, edit: (permissions) => {
      for (const role of Object.values(permissions)) for (const resource of Object.keys(role)) if (resource !== '/users/{userId}' && resource !== '$extend') delete role[resource];
      delete permissions.admin!['users/:userId'];
    } }));
    // The consumer starts after the bundle is published: its first poll must not see the 404 from before.
    const { policy, next } = consumer();
    guardedApp(policy);
    const failed = await next('failed');
    expect(failed.error.code).toBe('ERR_SVCGATE_BUNDLE_OPERATIONS');
    expect(failed.error.message).toContain('"GET /users" is in the OpenAPI document but not in the bundle');
    expect(failed.error.message).toContain('"GET /users/{userId}": params differs');
    expect(failed.status.ready).toBe(false);
  });

  test('persists the last good bundle and boots from it when the server is unreachable', async () => {
    const persistDir = tempDir();
    const first = consumer({ persistDir });
    fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
    await first.next('activated');
    first.policy.close();
    await fixture.server.stop();

    const restarted = consumer({ persistDir });
    const app = guardedApp(restarted.policy);
    const activated = await restarted.next('activated');
    expect(activated.status).toMatchObject({ revision: 'v1', activatedFrom: 'persisted' });
    expect((await request(app).get('/api/v1/users/1').set('Authorization', `Bearer ${await userOwning1()}`)).status).toBe(200);
    expect((await restarted.next('failed')).status).toMatchObject({ ready: true, revision: 'v1' });
  });

  test('fails closed with 503 once no check has succeeded for maxAgeSeconds', async () => {
    const { policy, next } = consumer({ maxAgeSeconds: 0.3 });
    const app = guardedApp(policy);
    fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
    await next('activated');
    const user = await userOwning1();
    expect((await request(app).get('/api/v1/users/1').set('Authorization', `Bearer ${user}`)).status).toBe(200);
    await fixture.server.stop();
    await new Promise((resolve) => setTimeout(resolve, 400));
    const answer = await request(app).get('/api/v1/users/1').set('Authorization', `Bearer ${user}`);
    expect(answer.status).toBe(503);
    expect(answer.body.message).toMatch(/not been checked for more than 0.3 s/);
    expect(answer.headers['retry-after']).toBeDefined();
    expect((await request(app).get('/healthz')).status).toBe(503);
  });

  test('bad options are start-up errors that name the option', () => {
    expect(() => bundleConsumer({ url: 'ftp://example.test/b.tar.gz' })).toThrow(ConfigError);
    expect(() => bundleConsumer({ url: 'http://127.0.0.1/b', polling: { minDelaySeconds: 10, maxDelaySeconds: 5 } })).toThrow(/minDelaySeconds must not be above maxDelaySeconds/);
    expect(() => bundleConsumer({ url: 'http://127.0.0.1/b', name: '../etc' })).toThrow(/\$\.name/);
    expect(() => bundleConsumer({ url: 'http://127.0.0.1/b', maxAge: 5 } as never)).toThrow(/maxAge/);
  });
});

describe('bundleConsumer behind the other adapters', () => {
  test('BearerJWT on @oas-tools/core: 503 before the first bundle, then its decisions, with the revision in the decision log', async () => {
    const host = await startOasHost({ openapi: EXAMPLE_OPENAPI, jwt: HS256, position: 2, bundleUrl: fixture.server.url('bundle.tar.gz') });
    try {
      const user = `Bearer ${await userOwning1()}`;
      const before = await fetch(`${host.url}/api/v1/users/1`, { headers: { authorization: user } });
      expect(before.status).toBe(503);
      expect(before.headers.get('retry-after')).toMatch(/^\d+$/);
      fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'oas-1' }));
      let status = before.status;
      for (let i = 0; i < 200 && status === 503; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        status = (await fetch(`${host.url}/api/v1/users/1`, { headers: { authorization: user } })).status;
      }
      expect(status).toBe(200);
      expect((await fetch(`${host.url}/api/v1/users/2`, { headers: { authorization: user } })).status).toBe(403);
      const { events } = await host.calls();
      expect(events.at(-1)).toMatchObject({ bundles: { svcgate: { revision: 'oas-1' } }, result: { allow: false } });
    } finally {
      host.stop();
    }
  });

  test('svcAcl on SvcApi: decides with a bundle compiled from svcAclOpenApi', async () => {
    class AccountService {
      getAccount({ accountId }: { accountId: string }) {
        return { id: accountId };
      }
    }
    const owners = { 'accountService.getAccount': { accountId: 'accounts' } };
    const { policy, next } = consumer();
    const api = new SvcApi().from(new SvcContainer().ofLocal(AccountService));
    api.interceptAll(svcAcl({ handler: bearerJwt(HS256), policy, owners }));
    const acl = { user: { '/api/account-service/get-account': { 'read:own': ['*'] } } };
    fixture.server.publish('bundle.tar.gz', await writeBundle({ data: compileAcl({ openapi: svcAclOpenApi(api, owners), acl, scheme: 'bearerAuth' }), wasm: readFileSync(policyWasmPath()), rego: {}, revision: 'svc-1' }));
    await next('activated');
    const jwt = await token({ role: 'user', accounts: ['a1'] });
    expect((await request(api.app).get('/api/account-service/get-account?accountId=a1').set('Authorization', `Bearer ${jwt}`)).status).toBe(200);
    expect((await request(api.app).get('/api/account-service/get-account?accountId=a2').set('Authorization', `Bearer ${jwt}`)).status).toBe(403);
  });
});

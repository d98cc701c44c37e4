import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { remoteOpa, type RemoteOpaOptions } from '../../src/fleet';
import { ConfigError } from '../../src/policy';
import { EXAMPLE_OPENAPI, exampleBundle, exampleData, examplePermissions } from '../helpers/bundles';
import { startOpa, type OpaServer } from '../helpers/opa-server';
import { HS256, token } from '../helpers/tokens';

const dir = mkdtempSync(join(tmpdir(), 'svcgate-remote-opa-'));
let opa: OpaServer;

beforeAll(async () => {
  const file = join(dir, 'bundle.tar.gz');
  writeFileSync(file, await exampleBundle({ revision: 'remote' }));
  opa = await startOpa(['--bundle', file]);
});
afterAll(async () => {
  await opa.stop();
  rmSync(dir, { recursive: true, force: true });
});

function app(options: { url: string } & Partial<RemoteOpaOptions>): express.Express {
  const guarded = express();
  guarded.use(bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt(HS256), policy: { bearerAuth: remoteOpa(options) } }));
  guarded.use((_req, res) => res.json({ ok: true }));
  return guarded;
}

function local(): express.Express {
  const guarded = express();
  guarded.use(bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt(HS256), acl: { bearerAuth: examplePermissions() } }));
  guarded.use((_req, res) => res.json({ ok: true }));
  return guarded;
}

/** Asks until the first answer is not the 503 of a source that has not checked OPA yet. */
async function settled(target: express.Express, path: string, jwt?: string): Promise<request.Response> {
  for (let i = 0; ; i++) {
    const call = request(target).get(path);
    const answer = await (jwt ? call.set('Authorization', `Bearer ${jwt}`) : call);
    if (answer.status !== 503 || !/has not been checked/.test(answer.body.message) || i > 100) return answer;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function fakeOpa(handler: express.RequestHandler): Promise<{ url: string; server: Server }> {
  const fake = express();
  fake.get('/v1/data/svcgate/acl', (_req, res) => res.json({ result: exampleData() }));
  fake.post('/v1/data/svcgate/authz/decision', handler);
  const server = await new Promise<Server>((resolve) => {
    const started = fake.listen(0, '127.0.0.1', () => resolve(started));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('remoteOpa', () => {
  test('decides as the in-process evaluator does, through a real OPA serving the bundle', async () => {
    const remote = app({ url: opa.url });
    const inProcess = local();
    const user = await token({ role: 'user', userId: [1, 3] });
    const admin = await token({ role: 'admin' });
    const cases: [string, string | undefined][] = [
      ['/api/v1/users/3', user],
      ['/api/v1/users/2', user],
      ['/api/v1/users/2', admin],
      ['/api/v1/users', user],
      ['/api/v1/users', undefined],
      ['/api/v1/transfers?accountId=acc-1', await token({ role: 'user', accounts: ['acc-1'] })],
      ['/api/v1/users/3/reports/2026-11', admin],
    ];
    for (const [path, jwt] of cases) {
      const expected = await settled(inProcess, path, jwt);
      const answer = await settled(remote, path, jwt);
      expect({ path, status: answer.status, body: answer.body }).toEqual({ path, status: expected.status, body: expected.body });
    }
  });

  test('OPA unreachable: 503 with Retry-After, and a decision remembered for cacheTtlMs is used until then', async () => {
    const stopping = await startOpa(['--bundle', join(dir, 'bundle.tar.gz')]);
    const remote = app({ url: stopping.url, cacheTtlMs: 60_000, checkIntervalSeconds: 3600 });
    const user = await token({ role: 'user', userId: 3 });
    expect((await settled(remote, '/api/v1/users/3', user)).status).toBe(200);
    await stopping.stop();
    expect((await request(remote).get('/api/v1/users/3').set('Authorization', `Bearer ${user}`)).status).toBe(200);
    const other = await request(remote).get('/api/v1/users/3').set('Authorization', `Bearer ${await token({ role: 'user', userId: 4 })}`);
    expect(other.status).toBe(503);
    expect(other.headers['retry-after']).toBe('1');
    expect(other.body.message).toMatch(/the remote OPA did not decide: cannot be reached \(ECONNREFUSED\)/);
  });

  test("a handler that changes req.auth.decision changes no later request's decision from the cache", async () => {
    const guarded = express();
    guarded.use(bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt(HS256), policy: { bearerAuth: remoteOpa({ url: opa.url }) } }));
    guarded.use((req, res) => {
      const auth = (req as express.Request & { auth: { decision: { attributes: string[] }; filter: <T>(data: T) => T } }).auth;
      const shown = auth.filter({ id: 3, password: 'secret' });
      try {
        // A careless handler: the decision the next caller gets from the cache must not be this one.
        auth.decision.attributes = ['*'];
      } catch {
        // A cached decision is frozen.
      }
      res.json(shown);
    });
    const user = await token({ role: 'user', userId: 3 });
    expect((await settled(guarded, '/api/v1/users/3', user)).body).toEqual({ id: 3 });
    expect((await request(guarded).get('/api/v1/users/3').set('Authorization', `Bearer ${user}`)).body).toEqual({ id: 3 });
  });

  test('an OPA that never answers costs timeoutMs, then 503', async () => {
    const { url, server } = await fakeOpa(() => undefined);
    try {
      const remote = app({ url, timeoutMs: 150 });
      const answer = await settled(remote, '/api/v1/users/3', await token({ role: 'user', userId: 3 }));
      expect(answer.status).toBe(503);
      expect(answer.body.message).toMatch(/no answer within 150 ms/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test('a huge, malformed or incomplete answer is never an allow', async () => {
    const answers: unknown[] = [];
    const { url, server } = await fakeOpa((_req, res) => {
      const next = answers.shift();
      if (typeof next === 'string') res.type('application/json').send(next);
      else res.json(next);
    });
    try {
      const remote = app({ url, maxResponseBytes: 4096, decisionCacheSize: 0 });
      const user = await token({ role: 'user', userId: 3 });
      answers.push(JSON.stringify({ result: { allow: true, pad: 'x'.repeat(10_000) } }));
      expect((await settled(remote, '/api/v1/users/3', user)).body.message).toMatch(/answered more than 4096 bytes/);
      answers.push('{"result": {"allow": tr');
      expect((await request(remote).get('/api/v1/users/3').set('Authorization', `Bearer ${user}`)).status).toBe(503);
      answers.push({ result: { allow: true } });
      expect((await request(remote).get('/api/v1/users/3').set('Authorization', `Bearer ${user}`)).status).toBe(403);
      answers.push({ result: { allow: true, attributes: ['*'], role: 'admin', possession: 'any', scopes: [], reasons: [], unavailable: false } });
      // A decision of the documented shape is OPA's to give; fields beyond it are not read.
      const extra = await request(remote).get('/api/v1/users/3').set('Authorization', `Bearer ${user}`);
      expect(extra.status).toBe(200);
      answers.push({});
      const undefinedDecision = await request(remote).get('/api/v1/users/3').set('Authorization', `Bearer ${user}`);
      expect(undefinedDecision.status).toBe(403);
      expect(undefinedDecision.body.message).toMatch(/data.svcgate.authz.decision is undefined/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test("OPA's data compiled for another API: 503 and a warning that lists the differences, never another API's decision", async () => {
    const other = join(dir, 'other.tar.gz');
    const otherApi = { openapi: '3.0.3', info: { title: 'o', version: '1' }, security: [{ bearerAuth: [] }], components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } }, paths: { '/users': { get: {} } } };
    writeFileSync(other, await exampleBundle({ revision: 'other', openapi: otherApi, edit: (permissions) => {
      permissions.user = {};
      permissions.admin = { '/users': { 'read:any': ['*'] } };
    } }));
    const wrong = await startOpa(['--bundle', other]);
    const warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const remote = app({ url: wrong.url });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const answer = await request(remote).get('/api/v1/users').set('Authorization', `Bearer ${await token({ role: 'admin' })}`);
      expect(answer.status).toBe(503);
      expect(answer.body.message).toMatch(/does not match the served OpenAPI document: .*"GET \/users\/\{userId\}" is in the OpenAPI document but not in the bundle/);
      expect(warning).toHaveBeenCalledWith(expect.stringMatching(/^remoteOpa http:\/\/127.0.0.1:\d+\/: OPA's data does not match the served OpenAPI document/), { code: 'SVCGATE_REMOTE_OPA_MISMATCH' });
    } finally {
      warning.mockRestore();
      await wrong.stop();
    }
  });

  test("OPA's data is read whole at start and again only when its revision changes, whatever maxResponseBytes", async () => {
    const reads = { document: 0, revision: 0 };
    let data = exampleData();
    const fake = express();
    fake.get('/v1/data/svcgate/acl', (_req, res) => {
      reads.document += 1;
      res.json({ result: data });
    });
    fake.get('/v1/data/svcgate/acl/revision', (_req, res) => {
      reads.revision += 1;
      res.json({ result: data.revision });
    });
    fake.post('/v1/data/svcgate/authz/decision', (_req, res) => res.json({ result: { allow: false, attributes: [], role: 'user', possession: null, scopes: [], reasons: ['no grant'] } }));
    const server = await new Promise<Server>((resolve) => {
      const started = fake.listen(0, '127.0.0.1', () => resolve(started));
    });
    try {
      // The document is larger than an answer may be; it is read with a bound of its own.
      expect(JSON.stringify(exampleData()).length).toBeGreaterThan(2048);
      const remote = app({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, maxResponseBytes: 2048, checkIntervalSeconds: 0.05 });
      expect((await settled(remote, '/api/v1/users/3', await token({ role: 'user', userId: 3 }))).status).toBe(403);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(reads.document).toBe(1);
      expect(reads.revision).toBeGreaterThanOrEqual(2);
      data = { ...data, revision: 'a-new-revision' };
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(reads.document).toBe(2);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test('bad options are start-up errors', () => {
    expect(() => remoteOpa({ url: 'unix:/var/run/opa.sock' })).toThrow(ConfigError);
    expect(() => remoteOpa({ url: opa.url, timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});

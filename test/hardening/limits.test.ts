import { join } from 'node:path';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl, SecurityError } from '../../src/auth';
import { compileAcl, Evaluator } from '../../src/policy';
import { SvcApi, SvcContainer } from '../../src/svc';
import { HS256, token } from '../helpers/tokens';

const EXAMPLE = join(__dirname, '../../examples/users-api');

describe('Authorization header size', () => {
  test('over maxHeaderBytes is refused before parsing, and the limit is configurable', async () => {
    const verify = bearerJwt({ ...HS256, maxHeaderBytes: 2048 });
    const small = `Bearer ${await token({ role: 'admin' })}`;
    const large = `Bearer ${await token({ role: 'admin', pad: 'x'.repeat(3000) })}`;
    await expect(verify(small)).resolves.toMatchObject({ role: 'admin' });
    await expect(verify(large)).rejects.toBeInstanceOf(SecurityError);
    await expect(bearerJwt(HS256)(large)).resolves.toMatchObject({ role: 'admin' });
  });

  test('the default, 8 KiB, answers 401 through the Express adapter', async () => {
    const app = require('express')();
    app.use(bearerJwtAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), handler: bearerJwt(HS256), acl: { bearerAuth: join(EXAMPLE, 'permissions.yaml') } }));
    app.get('/api/v1/users', (_req: unknown, res: { json: (body: unknown) => void }) => res.json([]));
    const huge = `Bearer ${'a'.repeat(8193)}`;
    const response = await request(app).get('/api/v1/users').set('Authorization', huge);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="the Authorization header is longer than 8192 bytes"');
  });
});

describe('JSON body size for SvcApi', () => {
  class Echo {
    addItem(body: unknown) {
      return body;
    }
  }

  test('bodyLimit is configurable; over it is 413 JSON and the method does not run', async () => {
    const app = new SvcApi({ bodyLimit: 1024 }).from(new SvcContainer().ofLocal(Echo)).app;
    expect((await request(app).post('/api/echo/add-item').send({ pad: 'x'.repeat(900) })).status).toBe(200);
    const response = await request(app).post('/api/echo/add-item').send({ pad: 'x'.repeat(2000) });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ error: 'PayloadTooLarge', message: 'the request body is too large' });
  });
});

describe('a large ACL: 1,000 roles x 1,000 paths', () => {
  test('compiles, loads into the evaluator and decides (the times are in bench/results.md)', async () => {
    const paths: Record<string, unknown> = {};
    for (let p = 0; p < 1000; p++) paths[`/r${p}/{id}`] = { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }] } };
    const openapi = { openapi: '3.0.3', info: { title: 'large', version: '1' }, security: [{ b: [] }], components: { securitySchemes: { b: { type: 'http', scheme: 'bearer' } } }, paths };
    const acl: Record<string, Record<string, unknown>> = {};
    for (let r = 0; r < 1000; r++) {
      const grants: Record<string, unknown> = {};
      for (let p = 0; p < 1000; p++) grants[`/r${p}/{id}`] = { [(r + p) % 2 === 0 ? 'read:any' : 'read:own']: ['*'] };
      acl[`role${r}`] = grants;
    }
    const data = compileAcl({ openapi, acl });
    expect(Object.keys(data.roles)).toHaveLength(1000);
    const evaluator = await Evaluator.create(data);
    expect(evaluator.evaluate({ operation: 'GET /r7/{id}', role: 'role1', params: { 'path:id': ['5'] } })).toMatchObject({ allow: true, possession: 'any' });
    expect(evaluator.evaluate({ operation: 'GET /r8/{id}', role: 'role1', params: { 'path:id': ['5'] }, claims: { 'path:id': ['6'] } })).toMatchObject({ allow: false, possession: 'own' });
    expect(evaluator.evaluate({ operation: 'GET /r8/{id}', role: 'role1', params: { 'path:id': ['6'] }, claims: { 'path:id': ['6'] } }).allow).toBe(true);
  }, 60_000);
});

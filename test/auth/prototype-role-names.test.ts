import type { RequestListener } from 'node:http';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { listen } from '../helpers/listen';
import { HS256, token } from '../helpers/tokens';

// SPEC 7.7 through a real adapter (Express 5): roles named like Object.prototype's members are
// decided exactly as declared, end to end from the declaration to the policy.
const itemId = { name: 'itemId', in: 'path', required: true, schema: { type: 'string' } };
const openapi = {
  openapi: '3.1.0',
  info: { title: 'items', version: '1' },
  security: [{ bearerAuth: [] }],
  components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  paths: { '/items/{itemId}': { get: { parameters: [itemId] }, delete: { parameters: [itemId] } } },
};

function guardedApp(declaration: unknown): { app: RequestListener; ran: string[] } {
  const ran: string[] = [];
  const app = require('express')();
  app.use(bearerJwtAcl({ openapi, handler: bearerJwt(HS256), acl: { bearerAuth: declaration } }));
  app.all(/.*/, (req: { method: string; path: string }, res: { json: (body: unknown) => void }) => {
    ran.push(`${req.method} ${req.path}`);
    res.json({});
  });
  return { app, ran };
}

test('a token with role constructor or toString is decided exactly as declared; undeclared prototype names grant nothing', async () => {
  const { app, ran } = guardedApp({
    anonymous: {},
    constructor: { '/items/{itemId}': { 'read:any': ['*'] } },
    toString: { $extend: ['constructor'], '/items/{itemId}': { 'delete:any': ['*'] } },
  });
  const { url, close } = await listen(app);
  const send = async (method: 'get' | 'delete', role: unknown) => (await request(url)[method]('/items/i1').set('Authorization', `Bearer ${await token({ role })}`)).status;
  try {
    expect([await send('get', 'constructor'), await send('delete', 'constructor')]).toEqual([200, 403]);
    expect([await send('get', 'toString'), await send('delete', 'toString')]).toEqual([200, 200]);
    for (const undeclared of ['valueOf', 'hasOwnProperty', '__proto__', ['valueOf', '__proto__']]) expect(await send('get', undeclared)).toBe(403);
    expect(ran).toEqual(['GET /items/i1', 'GET /items/i1', 'DELETE /items/i1']);
  } finally {
    await close();
  }

  expect(() => guardedApp({ anonymous: {}, reader: { $extend: ['valueOf'] } })).toThrow(new ConfigError('<inline ACL>', '$.reader.$extend[0]', 'role reader extends valueOf, which is not declared', 'declare valueOf or remove it from $extend'));
  expect(() => guardedApp(JSON.parse('{"anonymous": {}, "__proto__": {"/items/{itemId}": {"read:any": ["*"]}}}'))).toThrow('<inline ACL> at $.__proto__: __proto__ cannot be a role name');
});

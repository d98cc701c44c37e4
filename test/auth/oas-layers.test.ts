import { BearerJWT } from '../../src/auth';

// Express 4 as @oas-tools/core 3.x hands it to register(): its router's stack is where the layers go.
type Express4App = Parameters<BearerJWT['register']>[0] & { lazyrouter(): void; _router: { stack: unknown[] } };
const express4 = require('express4') as () => Express4App;

// Express 4 tries its layers in order, so every layer BearerJWT registers for a path is walked by
// the requests to all the paths registered after it. A path that asks for no security gets none.
const responses = { '200': { description: 'ok' } };
const document = {
  openapi: '3.0.3',
  info: { title: 'layers', version: '1' },
  security: [{ bearerAuth: [] }],
  components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
  paths: {
    '/status': { get: { security: [], responses } },
    '/users/:userId': {
      parameters: [{ name: 'userId', in: 'path', required: true, schema: { type: 'integer' } }],
      get: { responses },
      delete: { security: [], responses },
    },
  },
};
const acl = { bearerAuth: { anonymous: {}, user: { '/users/{userId}': { 'read:own': ['*'] } } } };

test('a path whose operations ask for no security gets no layer; a path with one secured operation gets its route and its error layer', async () => {
  const guard = await BearerJWT.initialize(document, { acl });
  const app = express4();
  app.lazyrouter();
  const layers = () => app._router.stack.length;
  const before = layers();
  guard.register(app, '/status');
  expect(layers()).toBe(before);
  guard.register(app, '/users/:userId');
  expect(layers()).toBe(before + 2);
});

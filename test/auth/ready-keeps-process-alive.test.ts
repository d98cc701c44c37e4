import { signingKey, startJwksServer, type JwksServer } from '../helpers/jwks-server';
import { entry, runScript } from '../helpers/node-script';

// SPEC 9.6, last clause: `await handler.ready()` (docs/openapi-apis.md) at the top of an ES module
// waits for the key set, in a real process against a real JWKS server. The fetch holds no socket
// or timer of its own, so without the fix the process ended at the await (exit code 13, and
// nothing after it ran).

jest.setTimeout(60_000);

let jwks: JwksServer;
beforeEach(async () => {
  jwks = await startJwksServer([await signingKey('k1', 'ES256')]);
});
afterEach(() => jwks.close());

test('await handler.ready() keeps the process alive until the key set has arrived, then lets it exit', async () => {
  const run = runScript(`import { bearerJwt } from ${entry('auth')};
    const handler = bearerJwt({ issuer: 'https://issuer.example', jwks: ${JSON.stringify(jwks.url)}, algorithms: ['ES256'], audience: 'api' });
    await handler.ready();
    console.log('keys ready');`);
  const { code, stdout } = await run.exited;
  expect({ code, stdout }).toEqual({ code: 0, stdout: 'keys ready\n' });
  expect(jwks.fetches).toBe(1);
});

test('with strict: true and an unreachable key set, the awaited ready() rejects in the process rather than ending it silently', async () => {
  await jwks.close();
  const run = runScript(`import { bearerJwt } from ${entry('auth')};
    const handler = bearerJwt({ issuer: 'https://issuer.example', jwks: ${JSON.stringify(jwks.url)}, algorithms: ['ES256'], audience: 'api', strict: true });
    await handler.ready().catch((error) => console.log('refused', error.constructor.name));`);
  const { code, stdout } = await run.exited;
  expect({ code, stdout }).toEqual({ code: 0, stdout: 'refused ConfigError\n' });
});

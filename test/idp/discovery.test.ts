import { createServer, type Socket } from 'node:net';
import { bearerJwt } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { withProvider } from '../helpers/oidc-provider';
import { bearer, call, withApis } from './guarded-apis';

// issuerBaseURL instead of issuer and jwks: the key set's URL and the algorithms come from the
// provider's metadata (the OpenID discovery document, else the RFC 8414 one).
const API = 'https://api.test';
const CLIENTS = [
  { id: 'rs', alg: 'RS256' as const, claims: { groups: ['auditor'] } },
  { id: 'es', alg: 'ES256' as const, claims: { groups: ['auditor'] } },
  { id: 'ed', alg: 'Ed25519' as const, claims: { groups: ['auditor'] } },
];
const openid = withProvider({ resources: { [API]: { scope: 'accounts:read' } }, clients: CLIENTS });
const oauthOnly = withProvider({ resources: { [API]: { scope: 'accounts:read' } }, clients: CLIENTS, discovery: 'oauth' });

const apis = withApis(() => ({ jwt: { issuerBaseURL: openid().issuer, audience: API, requiredClaims: ['exp'] }, roleBinding: 'groups' }));
const oauthApis = withApis(() => ({ jwt: { issuerBaseURL: oauthOnly().issuer, audience: API, requiredClaims: ['exp'] }, roleBinding: 'groups', adapters: ['express'] }));

test.each(['express', 'oas-tools', 'svc'])('%s: issuerBaseURL alone accepts the tokens of every algorithm the metadata lists', async (name) => {
  const api = apis().find((candidate) => candidate.name === name)!;
  for (const client of ['rs', 'es', 'ed']) {
    expect([client, (await call(api.reportsUrl(), bearer(await openid().token(client)))).status]).toEqual([client, 200]);
  }
  // The issuer defaults to the base URL: another provider's token is refused.
  expect((await call(api.reportsUrl(), bearer(await oauthOnly().token('rs')))).status).toBe(401);
});

test('a provider with only the RFC 8414 metadata document (/.well-known/oauth-authorization-server)', async () => {
  expect((await fetch(`${oauthOnly().issuer}/.well-known/openid-configuration`)).status).toBe(404);
  const [api] = oauthApis();
  expect((await call(api!.reportsUrl(), bearer(await oauthOnly().token('es')))).status).toBe(200);
  expect((await call(api!.reportsUrl(), bearer(await openid().token('es')))).status).toBe(401);
});

describe('the start-up check', () => {
  afterEach(() => jest.restoreAllMocks());

  /** A 127.0.0.1 port nothing listens on. */
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  /** A 127.0.0.1 server that accepts connections and never answers. */
  async function silentServer(): Promise<{ base: string; close: () => Promise<void> }> {
    const sockets: Socket[] = [];
    const server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return {
      base: `http://127.0.0.1:${port}`,
      close: () => {
        sockets.forEach((socket) => socket.destroy());
        return new Promise((resolve) => server.close(() => resolve()));
      },
    };
  }

  test('ready() resolves once the metadata and the key set have arrived', async () => {
    await expect(bearerJwt({ issuerBaseURL: openid().issuer, audience: API, strict: true }).ready()).resolves.toBeUndefined();
  });

  test("strict: a metadata document naming another issuer than the expected one is a ConfigError", async () => {
    const handler = bearerJwt({ issuer: 'https://elsewhere.test', issuerBaseURL: openid().issuer, audience: API, strict: true });
    await expect(handler.ready()).rejects.toThrow(ConfigError);
  });

  test('a provider that does not answer: a warning by default, a ConfigError with strict', async () => {
    const base = `http://127.0.0.1:${await closedPort()}`;
    const warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    await expect(bearerJwt({ issuerBaseURL: base, audience: API }).ready()).resolves.toBeUndefined();
    expect(warning).toHaveBeenCalledTimes(1);
    expect(warning.mock.calls[0]?.[1]).toMatchObject({ code: 'SVCGATE_KEY_SET_UNAVAILABLE' });
    await expect(bearerJwt({ issuerBaseURL: base, audience: API, strict: true }).ready()).rejects.toThrow(ConfigError);
    await expect(bearerJwt({ issuer: base, jwks: `${base}/jwks`, algorithms: ['RS256'], audience: API, strict: true }).ready()).rejects.toThrow(ConfigError);
  });

  test('a provider that accepts the connection and never answers: refused after timeoutDuration', async () => {
    const silent = await silentServer();
    try {
      await expect(bearerJwt({ issuerBaseURL: silent.base, audience: API, timeoutDuration: 200, strict: true }).ready()).rejects.toThrow(ConfigError);
      await expect(bearerJwt({ issuer: silent.base, jwks: `${silent.base}/jwks`, algorithms: ['RS256'], audience: API, timeoutDuration: 200, strict: true }).ready()).rejects.toThrow(ConfigError);
    } finally {
      await silent.close();
    }
  });
});

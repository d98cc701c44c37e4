import { withProvider } from '../helpers/oidc-provider';
import { bearer, call, withApis, type GuardedApi } from './guarded-apis';

// Scopes from the OpenAPI document, decided by the policy on the provider's scope claim. The role
// (auditor) allows everything, so every 403 here comes from a missing scope.
const API = 'https://api.test';
const provider = withProvider({
  resources: { [API]: { scope: 'accounts:read reports:read', alg: 'ES256' } },
  clients: [
    { id: 'auditor', claims: { groups: ['auditor'] } },
    // scp, the list form some providers (Okta, Entra) use, instead of the scope string.
    { id: 'scp-auditor', claims: { groups: ['auditor'], scp: ['reports:read'] } },
  ],
});
const jwt = () => ({ issuer: provider().issuer, jwks: provider().jwksUri, algorithms: ['ES256'], audience: API });
const SCOPES = { getAccount: ['accounts:read'], listReports: ['reports:read'] };
const FLOWS = () => ({ clientCredentials: { tokenUrl: `${provider().issuer}/token`, scopes: { 'accounts:read': 'read accounts', 'reports:read': 'read reports' } } });

const oauth2 = withApis(() => ({ jwt: jwt(), roleBinding: 'groups', scheme: { name: 'oauth', definition: { type: 'oauth2', flows: FLOWS() } }, scopes: SCOPES, adapters: ['express'] }));
const openIdConnect = withApis(() => ({
  jwt: jwt(),
  roleBinding: 'groups',
  scheme: { name: 'oidc', definition: { type: 'openIdConnect', openIdConnectUrl: `${provider().issuer}/.well-known/openid-configuration` } },
  scopes: SCOPES,
  adapters: ['express'],
}));
// OpenAPI 3.1 allows scopes on any scheme type: an http bearer scheme, on the @oas-tools/core host too.
const httpBearer = withApis(() => ({ jwt: jwt(), roleBinding: 'groups', openapi: '3.1.0', scopes: SCOPES, adapters: ['express', 'oas-tools'] }));
const required = withApis(() => ({ jwt: jwt(), roleBinding: 'groups', requiredScopes: ['accounts:read'], adapters: ['express'] }));

const tokens: Record<string, string> = {};
beforeAll(async () => {
  tokens.both = await provider().token('auditor', { scope: 'accounts:read reports:read' });
  tokens.accounts = await provider().token('auditor', { scope: 'accounts:read' });
  tokens.none = await provider().token('auditor');
  tokens.scp = await provider().token('scp-auditor');
});

const insufficient = (scope: string) => new RegExp(`^Bearer error="insufficient_scope".*scope="${scope}"`);

async function expectScopesDecided(api: GuardedApi): Promise<void> {
  expect((await call(api.accountUrl('acc-1'), bearer(tokens.both!))).status).toBe(200);
  expect((await call(api.reportsUrl(), bearer(tokens.both!))).status).toBe(200);
  expect((await call(api.accountUrl('acc-1'), bearer(tokens.accounts!))).status).toBe(200);
  const reports = await call(api.reportsUrl(), bearer(tokens.accounts!));
  expect(reports.status).toBe(403);
  expect(reports.challenge).toMatch(insufficient('reports:read'));
  const account = await call(api.accountUrl('acc-1'), bearer(tokens.none!));
  expect(account.status).toBe(403);
  expect(account.challenge).toMatch(insufficient('accounts:read'));
  expect((await call(api.reportsUrl(), bearer(tokens.scp!))).status).toBe(200);
  expect((await call(api.accountUrl('acc-1'), bearer(tokens.scp!))).status).toBe(403);
}

test('Express: an oauth2 scheme with scopes per operation', () => expectScopesDecided(oauth2()[0]!));
test('Express: an openIdConnect scheme with scopes per operation', () => expectScopesDecided(openIdConnect()[0]!));
test.each(['express', 'oas-tools'])('%s: an http bearer scheme with scopes (OpenAPI 3.1)', (name) => expectScopesDecided(httpBearer().find((api) => api.name === name)!));

test('Express: requiredScopes, for a document without scopes', async () => {
  const [api] = required();
  expect((await call(api!.reportsUrl(), bearer(tokens.accounts!))).status).toBe(200);
  const answer = await call(api!.reportsUrl(), bearer(tokens.none!));
  expect(answer.status).toBe(403);
  expect(answer.challenge).toMatch(insufficient('accounts:read'));
});

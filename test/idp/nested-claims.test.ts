import { withProvider } from '../helpers/oidc-provider';
import { bearer, call, withApis } from './guarded-apis';

// Keycloak-shaped claims from the provider: the role in realm_access.roles, the owned accounts
// under resource_access["my-api"], and a namespaced claim whose name holds dots and slashes.
const API = 'https://api.test';
const provider = withProvider({
  resources: { [API]: { scope: 'accounts:read', alg: 'ES256' } },
  clients: [
    { id: 'reader', claims: { realm_access: { roles: ['reader'] }, resource_access: { 'my-api': { accounts: ['acc-1', 'acc-3'] } }, role: 'auditor' } },
    { id: 'auditor', claims: { realm_access: { roles: ['auditor'] } } },
    { id: 'namespaced', claims: { realm_access: { roles: ['reader'] }, 'https://api.test/claims': { account: 'acc-7' } } },
  ],
});
const jwt = () => ({ issuer: provider().issuer, jwks: provider().jwksUri, algorithms: ['ES256'], audience: API, requiredClaims: ['exp'] });
const apis = withApis(() => ({ jwt: jwt(), roleBinding: 'realm_access.roles', accountBinding: 'resource_access["my-api"].accounts' }));
const namespaced = withApis(() => ({ jwt: jwt(), roleBinding: 'realm_access.roles', accountBinding: '["https://api.test/claims"].account' }));

const tokens: Record<string, string> = {};
beforeAll(async () => {
  for (const id of ['reader', 'auditor', 'namespaced']) tokens[id] = await provider().token(id);
});

const adapters = ['express', 'oas-tools', 'svc'];

test.each(adapters)("%s: roleBinding 'realm_access.roles' reads the role, the nested binding the owned accounts", async (name) => {
  const api = apis().find((candidate) => candidate.name === name)!;
  expect((await call(api.accountUrl('acc-3'), bearer(tokens.reader!))).status).toBe(200);
  expect((await call(api.accountUrl('acc-2'), bearer(tokens.reader!))).status).toBe(403);
  // The top-level role claim (the fallback when the bound claim is absent) says auditor; the bound one says reader, and decides.
  expect((await call(api.reportsUrl(), bearer(tokens.reader!))).status).toBe(403);
  expect((await call(api.reportsUrl(), bearer(tokens.auditor!))).status).toBe(200);
});

test.each(adapters)('%s: a binding on a claim whose name holds dots and slashes, written in brackets', async (name) => {
  const api = namespaced().find((candidate) => candidate.name === name)!;
  expect((await call(api.accountUrl('acc-7'), bearer(tokens.namespaced!))).status).toBe(200);
  expect((await call(api.accountUrl('acc-1'), bearer(tokens.namespaced!))).status).toBe(403);
  // The reader's accounts sit under another path.
  expect((await call(api.accountUrl('acc-1'), bearer(tokens.reader!))).status).toBe(403);
});

import { withProvider } from '../helpers/oidc-provider';
import { bearer, call, sleep, untilExpired, withApis } from './guarded-apis';

// A refused provider token is answered with a reason a caller can act on: RFC 6750's
// error_description in the challenge, the same text as the JSON message, and a deny in the log.
const API = 'https://api.test';
const RESOURCES = { [API]: { scope: 'accounts:read', alg: 'ES256' as const }, 'https://other.test': { scope: 'accounts:read', alg: 'ES256' as const } };
const provider = withProvider({ resources: RESOURCES, clients: [{ id: 'auditor', claims: { groups: ['auditor'] } }, { id: 'short', ttlSeconds: 1, claims: { groups: ['auditor'] } }] });
const stranger = withProvider(async () => ({ keys: provider().keys, resources: RESOURCES, clients: [{ id: 'auditor', claims: { groups: ['auditor'] } }] }));
const apis = withApis(() => ({ jwt: { issuer: provider().issuer, jwks: provider().jwksUri, algorithms: ['ES256'], audience: API, clockTolerance: 0 }, roleBinding: 'groups' }));

const challenge = (description: string) => `Bearer error="invalid_token", error_description="${description}"`;

async function expectReason(token: string, description: string): Promise<void> {
  for (const api of apis()) {
    const logged = (await api.events()).length;
    const answer = await call(api.reportsUrl(), bearer(token));
    expect([api.name, answer.status, answer.challenge]).toEqual([api.name, 401, challenge(description)]);
    expect([api.name, (answer.body as { message?: unknown }).message]).toEqual([api.name, description]);
    expect([api.name, (await api.events()).slice(logged)]).toEqual([api.name, [expect.objectContaining({ result: expect.objectContaining({ allow: false }), status: 401 })]]);
  }
}

test('an expired token: "the token has expired"', async () => {
  const short = await provider().token('short');
  await sleep(untilExpired(short));
  await expectReason(short, 'the token has expired');
});

test("a token for another resource: \"the token's audience is not accepted\"", async () => {
  await expectReason(await provider().token('auditor', { resource: 'https://other.test' }), "the token's audience is not accepted");
});

test("another provider's token: \"the token's issuer is not accepted\"", async () => {
  await expectReason(await stranger().token('auditor'), "the token's issuer is not accepted");
});

import { SignJWT } from 'jose';
import { bearerJwt, JsonWebTokenError } from '../../src/auth';
import { HS256, ISSUER, SECRET, token } from '../helpers/tokens';

// The verified-token cache may never turn a failure into a success.
const key = new TextEncoder().encode(SECRET);
const now = () => Math.floor(Date.now() / 1000);

test('an entry never outlives the token: after exp the token is refused again', async () => {
  const verify = bearerJwt({ ...HS256, clockTolerance: 0 });
  const exp = now() + 1;
  const jwt = `Bearer ${await new SignJWT({ sub: 'a' }).setProtectedHeader({ alg: 'HS256' }).setIssuer(ISSUER).setExpirationTime(exp).sign(key)}`;
  await expect(verify(jwt)).resolves.toMatchObject({ sub: 'a' });
  await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 50));
  await expect(verify(jwt)).rejects.toMatchObject({ code: 'ERR_JWT_EXPIRED' });
});

test('another string is never the cached token: a changed signature or payload is verified and refused', async () => {
  const verify = bearerJwt(HS256);
  const jwt = await token({ sub: 'a', role: 'user' });
  await verify(`Bearer ${jwt}`);
  const [header, payload, signature] = jwt.split('.') as [string, string, string];
  const forgedPayload = Buffer.from(JSON.stringify({ iss: ISSUER, sub: 'a', role: 'admin' })).toString('base64url');
  await expect(verify(`Bearer ${header}.${forgedPayload}.${signature}`)).rejects.toBeInstanceOf(JsonWebTokenError);
  await expect(verify(`Bearer ${header}.${payload}.${signature.slice(0, -2)}AA`)).rejects.toBeInstanceOf(JsonWebTokenError);
  // The cache is keyed by a token's last characters: the forged payload kept them, and the cached token still answers.
  await expect(verify(`Bearer ${jwt}`)).resolves.toMatchObject({ sub: 'a', role: 'user' });
});

test('a token signed with another key is refused even when a token with the same claims is cached', async () => {
  const verify = bearerJwt(HS256);
  await verify(`Bearer ${await token({ sub: 'a' })}`);
  await expect(verify(`Bearer ${await token({ sub: 'a' }, 'another-secret-that-is-32-bytes-long')}`)).rejects.toBeInstanceOf(JsonWebTokenError);
});

test('the cache is per handler: a token verified by one issuer config is not accepted by another', async () => {
  const jwt = `Bearer ${await token({ sub: 'a' })}`;
  await bearerJwt(HS256)(jwt);
  await expect(bearerJwt({ ...HS256, issuer: 'someone-else' })(jwt)).rejects.toBeInstanceOf(JsonWebTokenError);
});

test('cached payloads are frozen, so one request cannot change what the next one sees', async () => {
  const verify = bearerJwt(HS256);
  const jwt = `Bearer ${await token({ role: 'user', userId: [1] })}`;
  const payload = await verify(jwt);
  expect(() => {
    (payload as { role: string }).role = 'admin';
  }).toThrow(TypeError);
  expect(() => (payload.userId as number[]).push(2)).toThrow(TypeError);
  expect(await verify(jwt)).toMatchObject({ role: 'user', userId: [1] });
});

test('maxTokenAge bounds cached entries', async () => {
  const verify = bearerJwt({ ...HS256, maxTokenAge: 1, clockTolerance: 0 });
  const jwt = `Bearer ${await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer(ISSUER).setIssuedAt(now()).setExpirationTime('1h').sign(key)}`;
  await expect(verify(jwt)).resolves.toBeDefined();
  await new Promise((resolve) => setTimeout(resolve, 2100));
  await expect(verify(jwt)).rejects.toBeInstanceOf(JsonWebTokenError);
});

test('a maxTokenAge given as a duration string is cached and bounds cached entries too', async () => {
  // Before durations were read at start-up, such tokens were never cached: each request verified again.
  const verify = bearerJwt({ ...HS256, maxTokenAge: '1s', clockTolerance: '0s' });
  const jwt = `Bearer ${await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer(ISSUER).setIssuedAt(now()).setExpirationTime('1h').sign(key)}`;
  const first = await verify(jwt);
  expect(await verify(jwt)).toBe(first);
  await new Promise((resolve) => setTimeout(resolve, 2100));
  await expect(verify(jwt)).rejects.toBeInstanceOf(JsonWebTokenError);
});

test('cache: false and a bad cache option', async () => {
  const verify = bearerJwt({ ...HS256, cache: false });
  const jwt = `Bearer ${await token()}`;
  expect(await verify(jwt)).not.toBe(await verify(jwt));
  expect(() => bearerJwt({ ...HS256, cache: { size: -1 } })).toThrow('$.cache');
});

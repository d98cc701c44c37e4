import { createHmac } from 'node:crypto';
import type { RequestListener } from 'node:http';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl, type BearerJwtAclOptions } from '../../src/auth';
import type { CheckOwnership } from '../../src/policy';
import { listen } from '../helpers/listen';
import { HS256, ISSUER, SECRET } from '../helpers/tokens';
import { bearerApi, getWithPathParam } from '../helpers/bearer-api';

// Finding 7 and SPEC 7.4, through bearerJwtAcl over HTTP: integers are compared as exact decimal
// strings, a claim that JSON cannot carry exactly owns nothing, and checkOwnership gets the exact
// value, never one rounded through a double.

const openapi = bearerApi({ '/users/{userId}': getWithPathParam('userId', 'integer'), '/prices/{price}': getWithPathParam('price', 'number') }, 'numbers');
const acl = { bearerAuth: { anonymous: {}, user: { '/users/{userId}': { 'read:own': ['*'] }, '/prices/{price}': { 'read:own': ['*'] } } } };

/**
 * An HS256 token whose payload is exactly `claims` as text, so it can hold a number that no JS
 * value spells, as a token from another issuer can (jose would print the rounded double).
 */
function tokenWithPayloadText(claims: string): string {
  const encode = (text: string) => Buffer.from(text).toString('base64url');
  const head = `${encode('{"alg":"HS256","typ":"JWT"}')}.${encode(`{"iss":"${ISSUER}","exp":${Math.floor(Date.now() / 1000) + 600},${claims}}`)}`;
  return `Bearer ${head}.${createHmac('sha256', SECRET).update(head).digest('base64url')}`;
}

async function serve(options: Partial<BearerJwtAclOptions> = {}) {
  const app = (require('express') as () => { use: (...args: unknown[]) => void })();
  app.use(bearerJwtAcl({ openapi, handler: bearerJwt(HS256), acl, ...options }));
  app.use((_req: unknown, res: { json: (body: unknown) => void }) => res.json({ ok: true }));
  return listen(app as unknown as RequestListener);
}

test('a claim "userId": [12345678901234567890] written as a JSON number owns neither its rounded neighbour nor itself', async () => {
  const { url, close } = await serve();
  try {
    const auth = tokenWithPayloadText('"role":"user","userId":[12345678901234567890]');
    expect((await request(url).get('/users/12345678901234567168').set('Authorization', auth)).status).toBe(403);
    expect((await request(url).get('/users/12345678901234567890').set('Authorization', auth)).status).toBe(403);
  } finally {
    await close();
  }
});

test('written as a string, the claim owns exactly its own id', async () => {
  const { url, close } = await serve();
  try {
    const auth = tokenWithPayloadText('"role":"user","userId":["12345678901234567890"]');
    expect((await request(url).get('/users/12345678901234567890').set('Authorization', auth)).status).toBe(200);
    expect((await request(url).get('/users/12345678901234567168').set('Authorization', auth)).status).toBe(403);
  } finally {
    await close();
  }
});

test('a number parameter /prices/9007199254740993 is not owned by the claim 9007199254740992', async () => {
  const { url, close } = await serve();
  try {
    for (const claim of ['9007199254740992', '"9007199254740992"']) {
      expect((await request(url).get('/prices/9007199254740993').set('Authorization', tokenWithPayloadText(`"role":"user","price":${claim}`))).status).toBe(403);
    }
    expect((await request(url).get('/prices/9007199254740993').set('Authorization', tokenWithPayloadText('"role":"user","price":"9007199254740993"'))).status).toBe(200);
  } finally {
    await close();
  }
});

test('checkOwnership gets /users/9007199254740993 as a BigInt and /prices/9007199254740993 as its exact text', async () => {
  const values: unknown[] = [];
  const checkOwnership: CheckOwnership = (_payload, _binding, value) => {
    values.push(value);
    return true;
  };
  const { url, close } = await serve({ checkOwnership });
  try {
    const auth = tokenWithPayloadText('"role":"user"');
    expect((await request(url).get('/users/9007199254740993').set('Authorization', auth)).status).toBe(200);
    expect((await request(url).get('/prices/9007199254740993').set('Authorization', auth)).status).toBe(200);
    expect(values).toEqual([9007199254740993n, '9007199254740993']);
  } finally {
    await close();
  }
});

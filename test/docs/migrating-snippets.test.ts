import { readFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { bearerJwt, bearerJwtAcl, JsonWebTokenError, type BearerJwtHandler, type DecisionLogEvent } from '../../src/auth';
import { listen } from '../helpers/listen';

// The isRevoked block of docs/migrating.md (express-jwt's isRevoked as a verifier around
// bearerJwt's), run as written (imports taken out, its given name passed in) behind bearerJwtAcl
// on Express 4 and 5, over real HTTP on 127.0.0.1.
const GUIDE = join(__dirname, '../../docs/migrating.md');
const SECRET = 'a-secret-for-the-migration-guide-32-bytes+';
type ExpressApp = { use: (...args: unknown[]) => void; get: (...args: unknown[]) => void };

function revocationHandler(isRevoked: (payload: { jti?: unknown }) => Promise<boolean>): BearerJwtHandler {
  const guide = readFileSync(GUIDE, 'utf8');
  const block = [...guide.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]!).find((code) => code.startsWith('// given: isRevoked'))!;
  const code = block.replace(/^import .*$/gm, '').replace(/^export /gm, '');
  const env = { ...process.env, JWT_SECRET: SECRET };
  return new Function('bearerJwt', 'JsonWebTokenError', 'process', 'isRevoked', `${code}\nreturn handler;`)(bearerJwt, JsonWebTokenError, { ...process, env }, isRevoked) as BearerJwtHandler;
}

const DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'migrating', version: '1' },
  security: [{ bearerAuth: [] }],
  components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  paths: { '/orders': { get: { responses: { '200': { description: 'orders' } } } } },
};
const ACL = { bearerAuth: { anonymous: {}, user: { '/orders': { 'read:any': ['*'] } } } };
const signed = (jti: string) =>
  new SignJWT({ iss: 'https://issuer.example', aud: 'https://api.example', exp: Math.floor(Date.now() / 1000) + 600, role: 'user', jti }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));

describe.each([
  ['Express 4', require('express4') as () => ExpressApp],
  ['Express 5', require('express') as () => ExpressApp],
])('the isRevoked verifier of docs/migrating.md on %s', (_name, express) => {
  test('a revoked token is a 401 invalid_token with the description given, logged; checked on every request, the token cache notwithstanding', async () => {
    const revoked = new Set<string>();
    const asked: unknown[] = [];
    const events: DecisionLogEvent[] = [];
    const app = express();
    app.use(bearerJwtAcl({ openapi: DOCUMENT, handler: revocationHandler(async (payload) => (asked.push(payload.jti), revoked.has(String(payload.jti)))), acl: ACL, decisionLog: (event) => events.push(event) }));
    app.get('/orders', (_req: unknown, res: { json: (body: unknown) => void }) => res.json([]));
    const { url, close } = await listen(app as unknown as RequestListener);
    try {
      const token = await signed('t-1');
      expect((await fetch(`${url}/orders`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      revoked.add('t-1');
      const refused = await fetch(`${url}/orders`, { headers: { authorization: `Bearer ${token}` } });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token", error_description="the token has been revoked"');
      expect(await refused.json()).toEqual({ error: 'Unauthorized', message: 'the token has been revoked', code: 'ERR_TOKEN_REVOKED' });
      expect(asked).toEqual(['t-1', 't-1']);
      expect(events.map((event) => [event.result.allow, event.status])).toEqual([
        [true, undefined],
        [false, 401],
      ]);
    } finally {
      await close();
    }
  });
});

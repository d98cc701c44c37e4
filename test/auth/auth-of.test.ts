import type { RequestListener } from 'node:http';
import express, { type ErrorRequestHandler } from 'express';
import { authOf, bearerJwt, bearerJwtAcl, NotGuardedError } from '../../src/auth';
import { authOf as svcAuthOf, svcAcl, SvcApi, SvcContainer, type SvcCallContext } from '../../src/svc';
import { EXAMPLE_OPENAPI, examplePermissions } from '../helpers/bundles';
import { listen } from '../helpers/listen';
import { HS256, token } from '../helpers/tokens';

// Issue 29, section 3: in strict TypeScript `req.auth` is optional, so the README's
// `req.auth.filter(...)` failed with TS18048 after the guard. authOf(req) returns the guard's auth
// typed without undefined, and fails closed (NotGuardedError, ERR_SVCGATE_NOT_GUARDED) on a
// request no guard allowed. That it type-checks is shown by test/packaging/typed-consumer.test.ts.

const user = { id: 1, name: 'Ada', password: 'secret' };
const bearer = async (claims: Record<string, unknown>) => `Bearer ${await token(claims)}`;

/** An app whose route answers authOf(req).filter(user); `before` runs ahead of the guard. */
async function serve(before?: (app: express.Express) => void) {
  const thrown: unknown[] = [];
  const app = express();
  before?.(app);
  app.use(bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt(HS256), acl: { bearerAuth: examplePermissions() } }));
  app.get('/api/v1/users/:userId', (req, res) => {
    res.json(authOf(req).filter(user));
  });
  const onError: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    thrown.push(error);
    res.status(500).json({ code: (error as { code?: unknown }).code });
  };
  app.use(onError);
  return { thrown, ...(await listen(app as unknown as RequestListener)) };
}

test("after bearerJwtAcl, authOf(req) is the guard's auth: filter keeps what the role is granted", async () => {
  const { url, close } = await serve();
  try {
    const owner = await fetch(`${url}/api/v1/users/1`, { headers: { authorization: await bearer({ role: 'user', userId: [1] }) } });
    expect(owner.status).toBe(200);
    expect(await owner.json()).toEqual({ id: 1, name: 'Ada' });
    const other = await fetch(`${url}/api/v1/users/2`, { headers: { authorization: await bearer({ role: 'user', userId: [1] }) } });
    expect(other.status).toBe(403);
  } finally {
    await close();
  }
});

test('a route no guard ran for: authOf throws NotGuardedError (500 through the app), never the unfiltered data', async () => {
  const { url, close, thrown } = await serve((app) => app.get('/api/v1/users/:userId', (req, res) => void res.json(authOf(req).filter(user))));
  try {
    const answer = await fetch(`${url}/api/v1/users/1`);
    expect(answer.status).toBe(500);
    expect(await answer.json()).toEqual({ code: 'ERR_SVCGATE_NOT_GUARDED' });
    expect(thrown).toHaveLength(1);
    expect(thrown[0]).toBeInstanceOf(NotGuardedError);
    expect(thrown[0]).toMatchObject({ name: 'NotGuardedError', code: 'ERR_SVCGATE_NOT_GUARDED' });
    expect((thrown[0] as Error).message).toBe('authOf: the request has no auth: no svcgate guard allowed it; register bearerJwtAcl (app.use, before the route) or svcAcl (interceptAll) so that it decides first');
  } finally {
    await close();
  }
});

test("an auth another middleware set (express-jwt's payload) is not taken for the guard's", async () => {
  const foreign = (req: express.Request, res: express.Response) => {
    (req as unknown as { auth: unknown }).auth = { sub: 'u-1', role: 'admin' };
    res.json(authOf(req).filter(user));
  };
  const { url, close, thrown } = await serve((app) => app.get('/api/v1/users/:userId', foreign));
  try {
    expect((await fetch(`${url}/api/v1/users/1`)).status).toBe(500);
    expect((thrown[0] as NotGuardedError).message).toMatch(/^authOf: the request's auth is not svcgate's \(it has no decision and filter\): another middleware set it;/);
  } finally {
    await close();
  }
});

// Where express-oauth2-jwt-bearer's declaration of req.auth wins over svcgate's (both installed,
// skipLibCheck: true, its file read first; docs/migrating.md), req.auth is its AuthResult.
// authOf(req) still compiles there, and checks at run time which middleware set it.
interface OtherPackagesRequest {
  auth?: { header: Record<string, unknown>; payload: Record<string, unknown>; token: string };
}

test("authOf compiles on a request whose auth another package's declaration types, and tells the guard's from the other's", async () => {
  const { url, close, thrown } = await serve((app) =>
    app.get('/api/v1/users/:userId', (req, res, next) => {
      if (req.headers.authorization !== undefined) return next();
      const other = req as unknown as OtherPackagesRequest;
      other.auth = { header: { alg: 'HS256' }, payload: { sub: 'u-1' }, token: 't' };
      res.json(authOf(other).filter(user));
    }),
  );
  try {
    expect((await fetch(`${url}/api/v1/users/1`)).status).toBe(500);
    expect(thrown[0]).toBeInstanceOf(NotGuardedError);
    const guarded: OtherPackagesRequest = { auth: undefined };
    expect(() => authOf(guarded)).toThrow(NotGuardedError);
    const allowed = await fetch(`${url}/api/v1/users/1`, { headers: { authorization: await bearer({ role: 'user', userId: 1 }) } });
    expect([allowed.status, await allowed.json()]).toEqual([200, { id: 1, name: 'Ada' }]);
  } finally {
    await close();
  }
});

describe('in a SvcApi method, authOf(context)', () => {
  class ProfileService {
    getProfile(_argument: unknown, context: SvcCallContext) {
      return { sub: svcAuthOf(context).payload?.sub ?? null, role: svcAuthOf(context).decision.role };
    }
  }
  const acl = { anonymous: {}, user: { '/api/profile-service/get-profile': { 'read:any': ['*'] } } };

  test('behind svcAcl: the caller', async () => {
    const api = new SvcApi().interceptAll(svcAcl({ handler: bearerJwt(HS256), acl })).from(new SvcContainer().ofLocal(ProfileService));
    const { url, close } = await listen(api.app as unknown as RequestListener);
    try {
      const answer = await fetch(`${url}/api/profile-service/get-profile`, { headers: { authorization: await bearer({ sub: 'u-1', role: 'user' }) } });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ sub: 'u-1', role: 'user' });
    } finally {
      await close();
    }
  });

  test('without svcAcl: NotGuardedError, answered 500 as any unmapped error, or as withErrors maps its name', async () => {
    const logged: unknown[] = [];
    const api = new SvcApi({ logError: (_message, error) => logged.push(error) }).from(new SvcContainer().ofLocal(ProfileService));
    const { url, close } = await listen(api.app as unknown as RequestListener);
    try {
      const answer = await fetch(`${url}/api/profile-service/get-profile`);
      expect(answer.status).toBe(500);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ name: 'NotGuardedError', code: 'ERR_SVCGATE_NOT_GUARDED' });
    } finally {
      await close();
    }
    const mapped = new SvcApi().withErrors({ NotGuardedError: 401 }).from(new SvcContainer().ofLocal(ProfileService));
    const served = await listen(mapped.app as unknown as RequestListener);
    try {
      const answer = await fetch(`${served.url}/api/profile-service/get-profile`);
      expect(answer.status).toBe(401);
      expect((await answer.json()) as unknown).toMatchObject({ error: 'NotGuardedError' });
    } finally {
      await served.close();
    }
  });
});

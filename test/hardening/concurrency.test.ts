import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { bearerJwt, bearerJwtAcl, type RequestAuth } from '../../src/auth';
import { svcAcl, SvcApi, SvcContainer } from '../../src/svc';
import { listen } from '../helpers/listen';
import { startOasHost, type OasHost } from '../helpers/oas-host';
import { HS256, token } from '../helpers/tokens';

// 2,000 requests at once, from callers of different roles and users, against each host: every
// answer must be the one its own token allows (no decision leaks between requests, through the
// token cache, the decision cache or anything else) and no handler may run on a deny.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const CALLERS = 200;
const REQUESTS = 2000;

interface Caller {
  authorization: string;
  role: string;
  owns: number[];
}

/** A small deterministic generator, so a failure can be replayed. */
function generator(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
}

async function callers(): Promise<Caller[]> {
  const next = generator(42);
  const roles = ['user', 'admin', 'guest', 'user', 'user'];
  const list: Caller[] = [];
  for (let i = 0; i < CALLERS; i++) {
    const role = roles[next(roles.length)]!;
    const owns = [next(10) + 1, next(10) + 1];
    list.push({ role, owns, authorization: `Bearer ${await token({ sub: `c${i}`, role, userId: owns })}` });
  }
  return list;
}

/** The example ACL (examples/users-api/permissions.yaml): admin reads any user, user only its own. */
function allowed(caller: Caller, id: number): boolean {
  return caller.role === 'admin' || (caller.role === 'user' && caller.owns.includes(id));
}

async function storm(base: string, pathFor: (id: number) => string, list: Caller[]) {
  const next = generator(7);
  const plan = Array.from({ length: REQUESTS }, () => ({ caller: list[next(list.length)]!, id: next(10) + 1 }));
  const statuses = await Promise.all(plan.map(({ caller, id }) => fetch(`${base}${pathFor(id)}`, { headers: { authorization: caller.authorization } }).then(async (response) => ({ status: response.status, body: await response.text() }))));
  const wrong = plan.flatMap(({ caller, id }, index) => {
    const expected = allowed(caller, id) ? 200 : 403;
    return statuses[index]!.status === expected ? [] : [`${caller.role} ${JSON.stringify(caller.owns)} -> ${id}: ${statuses[index]!.status}, expected ${expected}`];
  });
  return { wrong, allowedCount: plan.filter(({ caller, id }) => allowed(caller, id)).length, bodies: statuses.map((s) => s.body) };
}

let list: Caller[];
beforeAll(async () => {
  list = await callers();
});

test('Express + bearerJwtAcl', async () => {
  const ran: string[] = [];
  const app = require('express')();
  app.use(bearerJwtAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), handler: bearerJwt(HS256), acl: { bearerAuth: join(EXAMPLE, 'permissions.yaml') } }));
  app.get('/api/v1/users/:userId', (req: { params: { userId: string }; auth: RequestAuth }, res: { json: (body: unknown) => void }) => {
    ran.push(req.params.userId);
    res.json({ id: req.params.userId, sub: req.auth.payload?.sub });
  });
  const server = await listen(app);
  const { wrong, allowedCount } = await storm(server.url, (id) => `/api/v1/users/${id}`, list);
  await server.close();
  expect(wrong).toEqual([]);
  expect(ran).toHaveLength(allowedCount);
});

test('SvcApi + svcAcl', async () => {
  const ran: string[] = [];
  class UserService {
    getUser({ userId }: { userId: string }) {
      ran.push(userId);
      return { userId };
    }
  }
  const acl = { user: { '/api/user-service/get-user': { 'read:own': ['*'] } }, admin: { '/api/user-service/get-user': { 'read:any': ['*'] } } };
  const server = await new SvcApi()
    .interceptAll(svcAcl({ handler: bearerJwt(HS256), acl, owners: { 'userService.getUser': { userId: 'userId' } } }))
    .from(new SvcContainer().ofLocal(UserService))
    .listen(0);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { wrong, allowedCount } = await storm(base, (id) => `/api/user-service/get-user?userId=${id}`, list);
  await new Promise((resolve) => server.close(resolve));
  expect(wrong).toEqual([]);
  expect(ran).toHaveLength(allowedCount);
});

describe('@oas-tools/core + BearerJWT', () => {
  let host: OasHost;
  beforeAll(async () => {
    host = await startOasHost({ openapi: join(EXAMPLE, 'openapi.yaml'), jwt: HS256, position: 2, acl: { bearerAuth: join(EXAMPLE, 'permissions.yaml') }, customHandler: true });
  });
  afterAll(() => host.stop());

  test('every answer is its own token\'s', async () => {
    const { wrong, allowedCount } = await storm(`${host.url}/api/v1`, (id) => `/users/${id}`, list);
    expect(wrong).toEqual([]);
    expect((await host.calls()).calls).toHaveLength(allowedCount);
  });
});

import { createOperationMatcher, readTarget, RequestValidationError, type OperationFacts } from '../../src/policy';

const op = (method: string, path: string): OperationFacts => ({ method, path, operation_id: null, resource: path, action: 'read', secured: true, params: {}, scopes: [] });
const match = createOperationMatcher({
  'GET /users/{id}': op('GET', '/users/{id}'),
  'GET /users/me': op('GET', '/users/me'),
  'DELETE /users/{id}': op('DELETE', '/users/{id}'),
  'GET /files/{name}.json': op('GET', '/files/{name}.json'),
  'GET /a/{x}/b/{y}': op('GET', '/a/{x}/b/{y}'),
  'GET /dates/{year}-{month}-{day}': op('GET', '/dates/{year}-{month}-{day}'),
  'GET /v{major}.{minor}/x': op('GET', '/v{major}.{minor}/x'),
  'GET /files/{id}': op('GET', '/files/{id}'),
  'GET /admin/': op('GET', '/admin/'),
});

test.each([
  ['GET', '/users/7', 'GET /users/{id}', { id: '7' }],
  ['GET', '/users/me', 'GET /users/me', {}],
  ['GET', '/users/7/', 'GET /users/{id}', { id: '7' }],
  ['HEAD', '/users/7', 'GET /users/{id}', { id: '7' }],
  ['delete', '/users/7', 'DELETE /users/{id}', { id: '7' }],
  ['GET', '/users/a%2Fb', 'GET /users/{id}', { id: 'a/b' }],
  ['GET', '/users/;id=7', 'GET /users/{id}', { id: ';id=7' }],
  ['GET', '/a/1/b/2', 'GET /a/{x}/b/{y}', { x: '1', y: '2' }],
  ['GET', '/USERS/Me', 'GET /users/me', {}],
  ['GET', '/dates/2024-01-02', 'GET /dates/{year}-{month}-{day}', { year: '2024', month: '01', day: '02' }],
  ['GET', '/dates/2024-01-%41', 'GET /dates/{year}-{month}-{day}', { year: '2024', month: '01', day: 'A' }],
  ['GET', '/V1.2/x', 'GET /v{major}.{minor}/x', { major: '1', minor: '2' }],
  ['GET', '/files/report', 'GET /files/{id}', { id: 'report' }],
  ['GET', '/admin', 'GET /admin/', {}],
  ['GET', '/admin/', 'GET /admin/', {}],
])('%s %s -> %s', (method, path, key, pathParams) => {
  expect(match(method, path)).toMatchObject({ key, pathParams });
});

test.each([
  ['POST', '/users/7'],
  ['GET', '/users'],
  ['GET', '/users/7/extra'],
  ['GET', '/files/a/report.json'],
  ['GET', '/dates/2024-01'],
  ['GET', '/dates/-01-02'],
  ['GET', '/dates/2024-01-'],
])('%s %s matches nothing', (method, path) => {
  expect(match(method, path)).toBeUndefined();
});

// Express splits `{year}-{month}-{day}` from the right, other routers from the left: where the
// two splits differ, no value can be trusted to be the handler's.
test.each([['/files/report.json'], ['/users/\u212A'], ['/USERS/m\u0130'], ['/dates/2024--01-02'], ['/dates/2024-01-02-03'], ['/dates/-----'], ['/v1.2.3/x'], ['/users/%E0%A4%A']])('GET %s is refused, not guessed', (path) => {
  expect(() => match('GET', path)).toThrow(RequestValidationError);
});

describe('the cost is linear in the length of the path', () => {
  /** Median time of `runs` calls, in ns per character, so inputs of different sizes compare. */
  function costPerChar(run: () => void, length: number, runs: number): number {
    const samples: number[] = [];
    for (let batch = 0; batch < 7; batch++) {
      const start = process.hrtime.bigint();
      for (let index = 0; index < runs; index++) run();
      samples.push(Number(process.hrtime.bigint() - start) / runs / length);
    }
    return samples.sort((a, b) => a - b)[3]!;
  }
  const attempt = (path: string) => () => {
    try {
      match('GET', path);
    } catch {
      // refused, as it must be; only the cost is measured here
    }
    try {
      readTarget(path);
    } catch {
      // idem
    }
  };

  // A backtracking pattern costs 64 x 64 times more per character on the longer input; linear work costs the same.
  test.each([
    ['dashes in a multi-parameter segment, then /x', (n: number) => `/dates/${'-'.repeat(n)}/x`],
    ['dashes in a multi-parameter segment', (n: number) => `/dates/${'-'.repeat(n)}`],
    ['a near-miss of two literals', (n: number) => `/v${'1.'.repeat(n / 2)}/x`],
    ['percent-escapes', (n: number) => `/users/${'%41'.repeat(n / 3)}`],
  ])('%s: 64 KiB costs per character what 1 KiB costs, within noise', (_label, path) => {
    const small = costPerChar(attempt(path(1024)), 1024, 200);
    const large = costPerChar(attempt(path(65_536)), 65_536, 4);
    expect(large / small).toBeLessThan(8);
  });
});

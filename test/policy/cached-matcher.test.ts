import fc from 'fast-check';
import { createOperationMatcher, type OperationFacts } from '../../src/policy';
import { cachedMatcher } from '../../src/policy/request/cached-matcher';

const op = (method: string, path: string): OperationFacts => ({ method, path, operation_id: null, resource: path, action: 'read', secured: true, params: {}, scopes: [] });
const operations = {
  'GET /users/{id}': op('GET', '/users/{id}'),
  'GET /users/me': op('GET', '/users/me'),
  'DELETE /users/{id}': op('DELETE', '/users/{id}'),
  'GET /files/{name}.json': op('GET', '/files/{name}.json'),
  'GET /files/{id}': op('GET', '/files/{id}'),
  'GET /dates/{year}-{month}-{day}': op('GET', '/dates/{year}-{month}-{day}'),
};

/** What a matcher answers, an error included, in a form two answers can be compared in. */
function outcome(match: (method: string, path: string) => unknown, method: string, path: string): unknown {
  try {
    return { found: match(method, path) };
  } catch (error) {
    return { refused: (error as Error).message };
  }
}

// Paths made of the pieces that matter to matching: templates' literals in any case, separators,
// percent-escapes (valid and not), non-ASCII, trailing slashes.
const piece = fc.constantFrom('users', 'USERS', 'me', 'Me', 'files', 'dates', 'x.json', 'a%2Fb', '%41', '%E0%A4%A', 'é', '2024-01-02', '2024-01-02-03', '', '7', ';id=7');
const path = fc.array(piece, { minLength: 1, maxLength: 4 }).map((pieces) => `/${pieces.join('/')}`);
const method = fc.constantFrom('GET', 'get', 'HEAD', 'DELETE', 'POST');

test('answers every request as the matcher it wraps, repeated or not, errors included', () => {
  const plain = createOperationMatcher(operations);
  const cached = cachedMatcher(createOperationMatcher(operations), 50);
  fc.assert(
    fc.property(fc.array(fc.tuple(method, path), { minLength: 1, maxLength: 20 }), (requests) => {
      // Each request twice, and the list again, so that hits, misses and evictions all happen.
      for (const [m, p] of [...requests, ...requests]) {
        expect(outcome(cached, m, p)).toEqual(outcome(plain, m, p));
        expect(outcome(cached, m, p)).toEqual(outcome(plain, m, p));
      }
    }),
    { numRuns: 500 },
  );
});

test('a shared match cannot be changed by the request that got it', () => {
  const cached = cachedMatcher(createOperationMatcher(operations));
  const first = cached('GET', '/users/7')!;
  expect(Object.isFrozen(first)).toBe(true);
  expect(Object.isFrozen(first.pathParams)).toBe(true);
  expect(() => {
    (first.pathParams as Record<string, string>).id = '8';
  }).toThrow(TypeError);
  expect(cached('GET', '/users/7')!.pathParams).toEqual({ id: '7' });
});

test('a refused path is refused again, and a path longer than 512 characters is matched every time', () => {
  let calls = 0;
  const matcher = createOperationMatcher(operations);
  const cached = cachedMatcher((m, p) => {
    calls += 1;
    return matcher(m, p);
  });
  const long = `/users/${'a'.repeat(600)}`;
  expect(cached('GET', long)).toMatchObject({ key: 'GET /users/{id}' });
  expect(cached('GET', long)).toMatchObject({ key: 'GET /users/{id}' });
  expect(calls).toBe(2);
  for (let i = 0; i < 2; i++) expect(() => cached('GET', '/users/%E0%A4%A')).toThrow('invalid percent-escape');
  expect(calls).toBe(4);
  expect(cached('GET', '/users/7')).toBe(cached('GET', '/users/7'));
  expect(calls).toBe(5);
});

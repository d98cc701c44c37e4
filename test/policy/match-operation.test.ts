import { createOperationMatcher, type OperationSpec } from '../../src/policy';

const op = (method: string, path: string): OperationSpec => ({ method, path, operation_id: null, resource: path, action: 'read', secured: true, params: {}, grants: {} });
const match = createOperationMatcher({
  'GET /users/{id}': op('GET', '/users/{id}'),
  'GET /users/me': op('GET', '/users/me'),
  'DELETE /users/{id}': op('DELETE', '/users/{id}'),
  'GET /files/{name}.json': op('GET', '/files/{name}.json'),
  'GET /a/{x}/b/{y}': op('GET', '/a/{x}/b/{y}'),
});

test.each([
  ['GET', '/users/7', 'GET /users/{id}', { id: '7' }],
  ['GET', '/users/me', 'GET /users/me', {}],
  ['GET', '/users/7/', 'GET /users/{id}', { id: '7' }],
  ['HEAD', '/users/7', 'GET /users/{id}', { id: '7' }],
  ['delete', '/users/7', 'DELETE /users/{id}', { id: '7' }],
  ['GET', '/users/a%2Fb', 'GET /users/{id}', { id: 'a/b' }],
  ['GET', '/users/;id=7', 'GET /users/{id}', { id: ';id=7' }],
  ['GET', '/files/report.json', 'GET /files/{name}.json', { name: 'report' }],
  ['GET', '/a/1/b/2', 'GET /a/{x}/b/{y}', { x: '1', y: '2' }],
  ['GET', '/USERS/Me', 'GET /users/me', {}],
])('%s %s -> %s', (method, path, key, pathParams) => {
  expect(match(method, path)).toMatchObject({ key, pathParams });
});

test.each([
  ['POST', '/users/7'],
  ['GET', '/users'],
  ['GET', '/users/7/extra'],
  ['GET', '/users/%E0%A4%A'],
  ['GET', '/files/report.xml'],
])('%s %s matches nothing', (method, path) => {
  expect(match(method, path)).toBeUndefined();
});

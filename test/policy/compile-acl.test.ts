import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileAcl, ConfigError } from '../../src/policy';
import { grantsOf } from '../helpers/grant-rows';

const EXAMPLE = join(__dirname, '../../examples/users-api');

/** A minimal valid document; tests override what they exercise. */
function api(paths: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    security: [{ bearerAuth: [] }],
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    paths,
    ...extra,
  };
}
const itemPath = { '/items/{id}': { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }] } } };

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('ERR_SVCGATE_CONFIG');
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

/** The warnings with `code` that `run` emits (spied, so that they are not printed). */
function warningsWithCode(code: string, run: () => unknown): string[] {
  const emitted = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  try {
    run();
    return emitted.mock.calls.filter(([, options]) => (options as { code?: string } | undefined)?.code === code).map(([message]) => String(message));
  } finally {
    emitted.mockRestore();
  }
}

describe('compiling the example API', () => {
  const data = compileAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: join(EXAMPLE, 'permissions.yaml') });

  test('records every operation with its resource, action and security', () => {
    expect(Object.keys(data.operations).sort()).toEqual([
      'DELETE /users/{userId}',
      'GET /accounts/{accountId}',
      'GET /status',
      'GET /transfers',
      'GET /users',
      'GET /users/{userId}',
      'GET /users/{userId}/reports/{year}-{month}',
      'POST /users',
      'PUT /users/{userId}',
    ]);
    expect(data.operations['PUT /users/{userId}']).toMatchObject({ method: 'PUT', resource: '/users/{userId}', action: 'update', secured: true, operation_id: 'updateUser' });
    expect(data.operations['GET /status']!.secured).toBe(false);
    expect(data.scheme).toBe('bearerAuth');
  });

  test('resolves $ref parameters declared at the path-item level', () => {
    expect(data.operations['GET /users/{userId}']!.params).toEqual({
      'path:userId': { name: 'userId', in: 'path', style: 'simple', explode: false, type: 'integer', items: null, binding: 'userId', owned: true },
    });
  });

  test('records x-acl-binding as the claim to compare', () => {
    expect(data.operations['GET /accounts/{accountId}']!.params['path:accountId']).toMatchObject({ binding: 'accounts', type: 'string', owned: true });
  });

  test('normalizes resource keys written without a slash and with :param', () => {
    expect(grantsOf(data, 'DELETE /users/{userId}')).toEqual({ admin: { any: ['*'] } });
    expect(data.roles).toEqual({ anonymous: { extends: [] }, user: { extends: [] }, admin: { extends: ['user'] } });
  });

  test('writes per operation what each role may do, its $extend followed', () => {
    expect(grantsOf(data, 'GET /users/{userId}')).toEqual({
      user: { own: ['*', '!password'] },
      admin: { any: ['*', '!password'], own: ['*', '!password'] },
    });
    expect(grantsOf(data, 'GET /accounts/{accountId}')).toEqual({ user: { own: ['*'] }, admin: { own: ['*'] } });
  });

  test('declares anonymous: {}, so the default is off and the user list needs a role (issue 10, finding 11)', () => {
    expect(data.anonymous_default).toBe(false);
    expect(grantsOf(data, 'GET /users')).toEqual({ admin: { any: ['*'] } });
    expect(grantsOf(data, 'GET /status')).toEqual({});
  });

  test('the revision is a stable hash of the content', () => {
    const again = compileAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: join(EXAMPLE, 'permissions.yaml') });
    expect(again.revision).toBe(data.revision);
    expect(data.revision).toMatch(/^[0-9a-f]{16}$/);
    const other = compileAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: { user: { '/users': { 'read:any': ['*'] } } } });
    expect(other.revision).not.toBe(data.revision);
  });
});

describe('the grant table', () => {
  const paths = { ...itemPath, '/things': { get: {} } };

  test('one column per declared role, then anonymous for the built-in grant; one cell per column in every row, found at the offset of its role', () => {
    const data = compileAcl({ openapi: api(paths), acl: { b: { '/things': { 'read:any': ['*'] } }, a: { '/items/{id}': { 'read:own': ['*'] } } } });
    expect(data.grant_offsets).toEqual({ b: 0, a: 1, anonymous: 2 });
    expect(data.grant_width).toBe(1);
    expect(data.grant_sets).toEqual({ a: { any: ['*'] }, b: { own: ['*'] } });
    expect(data.operations['GET /things']!.grants).toBe('a-a');
    expect(data.operations['GET /items/{id}']!.grants).toBe('-b-');
  });

  test('names each distinct grant set once, and widens the cells when there are more sets than characters', () => {
    const acl = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`r${i}`, { '/things': { 'read:any': [`field${i % 95}`] } }]));
    const data = compileAcl({ openapi: api(paths), acl: { anonymous: {}, ...acl } });
    expect(Object.keys(data.grant_sets)).toHaveLength(95);
    expect(data.grant_width).toBe(2);
    expect(data.grant_offsets).toMatchObject({ anonymous: 0, r0: 2, r1: 4, r99: 200 });
    expect(data.operations['GET /things']!.grants).toHaveLength(101 * 2);
    expect(Object.keys(data.grant_sets).every((cell) => /^[^-"\\]{2}$/.test(cell))).toBe(true);
    expect(grantsOf(data, 'GET /things')).toEqual(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`r${i}`, { any: [`field${i % 95}`] }])));
  });
});

describe('grants per operation', () => {
  const paths = {
    ...itemPath,
    '/things': { get: {} },
    '/open': { get: { security: [] } },
  };

  test('follow $extend transitively, with each attribute once', () => {
    const acl = {
      a: { $extend: ['b'], '/items/{id}': { 'read:any': ['name'] } },
      b: { $extend: ['c'], '/items/{id}': { 'read:own': ['name', 'size'] } },
      c: { '/items/{id}': { 'read:own': ['size', 'price'] } },
    };
    const data = compileAcl({ openapi: api(paths), acl });
    expect(grantsOf(data, 'GET /items/{id}')).toEqual({
      a: { any: ['name'], own: ['name', 'size', 'price'] },
      b: { own: ['name', 'size', 'price'] },
      c: { own: ['size', 'price'] },
    });
  });

  test('leave out empty attribute lists, and roles left with nothing', () => {
    const acl = { a: { '/items/{id}': { 'read:any': [], 'read:own': ['*'] } }, b: { '/items/{id}': { 'read:any': [] } } };
    expect(grantsOf(compileAcl({ openapi: api(paths), acl }), 'GET /items/{id}')).toEqual({ a: { own: ['*'] } });
  });

  test('hold the built-in anonymous grant only while the ACL does not declare anonymous', () => {
    const declared = compileAcl({ openapi: api(paths), acl: { anonymous: { '/items/{id}': { 'read:any': ['id'] } } } });
    expect(declared.anonymous_default).toBe(false);
    expect(grantsOf(declared, 'GET /things')).toEqual({});
    expect(grantsOf(declared, 'GET /items/{id}')).toEqual({ anonymous: { any: ['id'] } });
    const undeclared = compileAcl({ openapi: api(paths), acl: {} });
    expect(grantsOf(undeclared, 'GET /things')).toEqual({ anonymous: { any: ['*'] } });
    expect(grantsOf(undeclared, 'GET /open')).toEqual({});
  });
});

describe('the built-in anonymous default is never silent (issue 10, finding 11)', () => {
  // GET /things and HEAD /things have no parameters: the default opens them. The rest it does not:
  // a POST, an unsecured GET, and GETs with a path, query or path-item header parameter.
  const paths = {
    ...itemPath,
    '/things': { get: {}, head: {}, post: {} },
    '/open': { get: { security: [] } },
    '/search': { get: { parameters: [{ name: 'q', in: 'query' }] } },
    '/mine': { parameters: [{ name: 'x-tenant', in: 'header' }], get: {} },
  };
  const acl = { user: { '/items/{id}': { 'read:own': ['*'] } } };

  const anonymousWarnings = (run: () => unknown) => warningsWithCode('SVCGATE_ANONYMOUS_DEFAULT', run);

  test('compiling warns once, listing exactly the operations the default opens and how to turn it off', () => {
    const [warning, ...more] = anonymousWarnings(() => compileAcl({ openapi: api(paths), acl }));
    expect(more).toEqual([]);
    expect(warning).toMatch(/^<inline ACL>: the ACL does not declare anonymous, .* read:any, every attribute, on GET \/things, HEAD \/things\. /);
    expect(warning).toContain('declare anonymous: {} to turn the default off');
    expect(warning).toContain('With strict: true (an option of compileAcl and of each adapter) this is an error');
  });

  test("the seed's rule still holds: the warned operations are granted to anonymous, the others are not", () => {
    const data = compileAcl({ openapi: api(paths), acl });
    const opened = Object.keys(data.operations).filter((key) => grantsOf(data, key).anonymous !== undefined);
    expect(opened).toEqual(['GET /things', 'HEAD /things']);
  });

  test('no warning when the ACL declares anonymous, even empty, or when the default opens nothing', () => {
    expect(anonymousWarnings(() => compileAcl({ openapi: api(paths), acl: { ...acl, anonymous: {} } }))).toEqual([]);
    expect(anonymousWarnings(() => compileAcl({ openapi: api(paths), acl: { anonymous: { '/things': { 'read:any': ['*'] } } } }))).toEqual([]);
    expect(anonymousWarnings(() => compileAcl({ openapi: api(itemPath), acl }))).toEqual([]);
  });

  test('strict: true makes it a ConfigError naming the ACL file, $.anonymous, the operations and the fix', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svcgate-anonymous-')), 'permissions.yaml');
    writeFileSync(file, 'user:\n  /items/{id}:\n    read:own: ["*"]\n');
    const error = configError(() => compileAcl({ openapi: api(paths), acl: file, strict: true }));
    expect([error.file, error.path]).toEqual([file, '$.anonymous']);
    expect(error.problem).toMatch(/on GET \/things, HEAD \/things$/);
    expect(error.fix).toMatch(/^declare anonymous: \{\} to turn the default off, or declare what anonymous may do/);
  });

  test('a wrong anonymousDefault option or x-acl-anonymous-default is a ConfigError also when the ACL declares anonymous (main: ignored)', () => {
    const declared = { ...acl, anonymous: {} };
    const fromOption = configError(() => compileAcl({ openapi: api(paths), acl: declared, anonymousDefault: 'nobody' as 'none' }));
    expect([fromOption.file, fromOption.path, fromOption.problem]).toEqual(['<compileAcl options>', '$.anonymousDefault', 'the anonymous default is "nobody"']);
    const fromDocument = configError(() => compileAcl({ openapi: api(paths, { 'x-acl-anonymous-default': 'off' }), acl: declared }));
    expect([fromDocument.path, fromDocument.problem]).toEqual(['$["x-acl-anonymous-default"]', 'the anonymous default is "off"']);
  });

  test('strict: true accepts a declared anonymous, and a default that opens nothing', () => {
    expect(compileAcl({ openapi: api(paths), acl: { ...acl, anonymous: {} }, strict: true }).anonymous_default).toBe(false);
    expect(compileAcl({ openapi: api(itemPath), acl, strict: true }).anonymous_default).toBe(true);
  });
});

describe('a grant for an action no operation of its path is decides nothing, and says so', () => {
  const paths = { '/items/{id}': { parameters: [{ name: 'id', in: 'path', required: true }], get: {}, put: {} }, '/items': { post: {} } };
  const acl = { anonymous: {}, user: { '/items/{id}': { 'read:own': ['*'], 'delete:any': ['*'] }, '/items': { 'read:any': ['*'], 'create:any': ['*'] } } };

  const unusedWarnings = (run: () => unknown) => warningsWithCode('SVCGATE_UNUSED_GRANT', run);

  test('one SVCGATE_UNUSED_GRANT warning lists each such grant with the actions its path serves', () => {
    const [warning, ...more] = unusedWarnings(() => compileAcl({ openapi: api(paths), acl }));
    expect(more).toEqual([]);
    expect(warning).toMatch(/^<inline ACL>: no operation is the action of these grants, so they decide nothing: delete:any of user on \/items\/\{id\} \(served: read, update\); read:any of user on \/items \(served: create\)\. To change it: /);
  });

  test('no warning when every grant is the action of an operation of its path', () => {
    expect(unusedWarnings(() => compileAcl({ openapi: api(paths), acl: { anonymous: {}, user: { '/items/{id}': { 'read:own': ['*'], 'update:own': ['*'] } } } }))).toEqual([]);
  });

  test('strict: true makes it a ConfigError at the first such grant', () => {
    const error = configError(() => compileAcl({ openapi: api(paths), acl, strict: true }));
    expect([error.file, error.path]).toEqual(['<inline ACL>', '$.user["/items/{id}"]["delete:any"]']);
    expect(error.fix).toMatch(/GET and HEAD read, POST create/);
  });
});

describe('the compiled document', () => {
  test('declaring anonymous replaces the default', () => {
    const data = compileAcl({ openapi: api(itemPath), acl: { anonymous: { '/items/{id}': { 'read:any': ['*'] } } } });
    expect(data.anonymous_default).toBe(false);
  });

  test('operation parameters override path-item parameters with the same name and location', () => {
    const data = compileAcl({
      openapi: api({
        '/items/{id}': {
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }, { name: 'q', in: 'query' }],
          get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' }, style: 'label', explode: true }] },
        },
      }),
      acl: {},
    });
    const params = data.operations['GET /items/{id}']!.params;
    expect(params['path:id']).toMatchObject({ type: 'integer', style: 'label', explode: true });
    expect(params['query:q']).toMatchObject({ style: 'form', explode: true, type: 'unknown', owned: false });
  });

  test('reads OpenAPI 3.1 type lists and array item types', () => {
    const data = compileAcl({
      openapi: api({
        '/items': { get: { parameters: [
          { name: 'ids', in: 'query', 'x-acl-binding': 'items', schema: { type: 'array', items: { type: ['integer', 'null'] } } },
          { name: 'n', in: 'header', schema: { type: ['number', 'null'] } },
        ] } },
      }),
      acl: {},
    });
    const params = data.operations['GET /items']!.params;
    expect(params['query:ids']).toMatchObject({ type: 'array', items: 'integer', binding: 'items', owned: true });
    expect(params['header:n']).toMatchObject({ type: 'number', style: 'simple', owned: false });
  });

  test('operation-level security: [] turns the check off, another scheme does not include ours', () => {
    const data = compileAcl({
      openapi: api(
        { '/a': { get: { security: [] } }, '/b': { get: { security: [{ apiKey: [] }] } }, '/c': { get: { security: [{ apiKey: [] }, { bearerAuth: [] }] } } },
        { components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'Bearer' }, apiKey: { type: 'apiKey', in: 'header', name: 'k' } } } },
      ),
      acl: {},
    });
    expect([data.operations['GET /a']!.secured, data.operations['GET /b']!.secured, data.operations['GET /c']!.secured]).toEqual([false, false, true]);
  });

  test('JSON body properties with x-acl-binding are owned, other properties play no part', () => {
    const body = { content: { 'application/json': { schema: { type: 'object', properties: { ownerId: { type: 'integer', 'x-acl-binding': 'sub' }, note: { type: 'string' } } } } } };
    const data = compileAcl({ openapi: api({ '/notes': { post: { requestBody: body } } }), acl: {} });
    expect(data.operations['POST /notes']!.params).toEqual({
      'body:ownerId': { name: 'ownerId', in: 'body', style: 'form', explode: false, type: 'integer', items: null, binding: 'sub', owned: true },
    });
  });

  test('writes the deny message for each owned parameter, and none for the others', () => {
    const body = { content: { 'application/json': { schema: { type: 'object', properties: { ownerId: { type: 'integer', 'x-acl-binding': 'sub' } } } } } };
    const params = [
      { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
      { name: 'team', in: 'query', schema: { type: 'string' }, 'x-acl-binding': 'teams' },
      { name: 'q', in: 'query', schema: { type: 'string' } },
    ];
    const data = compileAcl({ openapi: api({ '/notes/{id}': { put: { parameters: params, requestBody: body } }, '/notes': { get: {} } }), acl: {} });
    expect(data.operations['PUT /notes/{id}']!.unowned_reasons).toEqual({
      'path:id': 'update:own needs ownership of path parameter id',
      'query:team': 'update:own needs ownership of query parameter team',
      'body:ownerId': 'update:own needs ownership of body parameter ownerId',
    });
    expect(data.operations['GET /notes']!.unowned_reasons).toEqual({});
  });

  test('an unsecured OPTIONS operation is left out', () => {
    const data = compileAcl({ openapi: api({ '/a': { options: { security: [] }, get: {} } }), acl: {} });
    expect(Object.keys(data.operations)).toEqual(['GET /a']);
  });
});

describe('invalid ACLs are ConfigErrors naming the file, the JSON path and the fix', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-acl-'));
  const aclFile = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  test('unknown resource path, with a suggestion when only parameter names differ', () => {
    const error = configError(() => compileAcl({ openapi: api(itemPath), acl: aclFile('a.json', '{"user": {"/items/:itemId": {"read:own": ["*"]}}}') }));
    expect(error.file).toContain('a.json');
    expect(error.path).toBe('$.user["/items/:itemId"]');
    expect(error.message).toContain('/items/:itemId is not a path of the OpenAPI document');
    expect(error.fix).toContain('did you mean /items/{id}?');
  });

  test('unknown path lists the document paths', () => {
    const error = configError(() => compileAcl({ openapi: api(itemPath), acl: { user: { '/nope': { 'read:any': [] } } } }));
    expect(error.fix).toContain('/items/{id}');
    expect(error.file).toBe('<inline ACL>');
  });

  test.each(['extend', 'extends', '$extends'])('%s where $extend was meant points to $extend', (key) => {
    const error = configError(() => compileAcl({ openapi: api(itemPath), acl: { user: {}, admin: { [key]: ['user'] } } }));
    expect(error.path).toMatch(/^\$\.admin/);
    expect(error.path).toContain(key);
    expect(error.problem).toBe(`${key} is neither a path of the OpenAPI document nor $extend`);
    expect(error.fix).toBe('write "$extend": ["otherRole"] to inherit another role\'s grants');
  });

  test('unknown action', () => {
    const error = configError(() => compileAcl({ openapi: api(itemPath), acl: aclFile('b.yaml', 'user:\n  /items/{id}:\n    write:own: ["*"]\n') }));
    expect(error.path).toBe('$.user["/items/{id}"]["write:own"]');
    expect(error.problem).toBe('unknown action "write"');
    expect(error.fix).toContain('create, read, update, delete');
  });

  test('unknown possession', () => {
    const error = configError(() => compileAcl({ openapi: api(itemPath), acl: { user: { '/items/{id}': { 'read:mine': ['*'] } } } }));
    expect(error.problem).toBe('unknown possession "mine"');
  });

  test('a grant key that is not action:possession', () => {
    const error = configError(() => compileAcl({ openapi: api(itemPath), acl: { user: { '/items/{id}': { read: ['*'] } } } }));
    expect(error.problem).toContain('"read" is not "<action>:<possession>"');
  });

  test('attributes that are not a list of strings', () => {
    const error = configError(() => compileAcl({ openapi: api(itemPath), acl: { user: { '/items/{id}': { 'read:own': '*' } } } }));
    expect(error.path).toBe('$.user["/items/{id}"]["read:own"]');
    expect(error.problem).toContain('attributes must be a list of strings');
    const nested = configError(() => compileAcl({ openapi: api(itemPath), acl: { user: { '/items/{id}': { 'read:own': ['*', 3] } } } }));
    expect(nested.path).toBe('$.user["/items/{id}"]["read:own"][1]');
  });

  test('a role that is not an object', () => {
    const error = configError(() => compileAcl({ openapi: api(itemPath), acl: { user: ['read'] } }));
    expect(error.path).toBe('$.user');
    expect(error.problem).toBe('a role must be an object of resource paths');
  });

  test('grants that are not an object', () => {
    const error = configError(() => compileAcl({ openapi: api(itemPath), acl: { user: { '/items/{id}': ['read:any'] } } }));
    expect(error.path).toBe('$.user["/items/{id}"]');
    expect(error.problem).toBe('grants must be an object of "<action>:<possession>" keys');
  });

  test('cyclic $extend names the cycle', () => {
    const error = configError(() => compileAcl({ openapi: api(itemPath), acl: { a: { $extend: ['b'] }, b: { $extend: ['c'] }, c: { $extend: ['a'] } } }));
    expect(error.problem).toBe('cyclic $extend: a -> b -> c -> a');
    expect(error.path).toBe('$.a.$extend');
  });

  test('a role extending itself', () => {
    expect(configError(() => compileAcl({ openapi: api(itemPath), acl: { a: { $extend: ['a'] } } })).problem).toBe('cyclic $extend: a -> a');
  });

  test('$extend of an undeclared role', () => {
    const error = configError(() => compileAcl({ openapi: api(itemPath), acl: { a: { $extend: ['ghost'] } } }));
    expect(error.path).toBe('$.a.$extend[0]');
    expect(error.problem).toContain('ghost, which is not declared');
  });

  test('$extend that is not a list', () => {
    expect(configError(() => compileAcl({ openapi: api(itemPath), acl: { a: { $extend: 'b' } } })).path).toBe('$.a.$extend');
  });

  test('one resource written twice in two spellings', () => {
    const error = configError(() => compileAcl({ openapi: api(itemPath), acl: { a: { '/items/{id}': { 'read:any': ['*'] }, 'items/:id': { 'read:own': ['*'] } } } }));
    expect(error.problem).toContain('declared twice');
  });
});

describe('role names that are names of Object.prototype (SPEC 7.7)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-roles-'));
  const write = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const paths = { ...itemPath, '/things': { get: {} } };
  const readThings = { '/things': { 'read:any': ['*'] } };

  test.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'])('%s: extending it undeclared is a ConfigError; declared, it is a role like any other', (name) => {
    const undeclared = configError(() => compileAcl({ openapi: api(paths), acl: { anonymous: {}, a: { $extend: [name] } } }));
    expect(undeclared.path).toBe('$.a.$extend[0]');
    expect(undeclared.problem).toBe(`role a extends ${name}, which is not declared`);

    const declared = compileAcl({ openapi: api(paths), acl: { anonymous: {}, [name]: { '/items/{id}': { 'read:own': ['id'] } }, a: { $extend: [name], ...readThings } } });
    expect(declared.roles).toEqual({ anonymous: { extends: [] }, [name]: { extends: [] }, a: { extends: [name] } });
    expect(grantsOf(declared, 'GET /items/{id}')).toEqual({ [name]: { own: ['id'] }, a: { own: ['id'] } });
    expect(grantsOf(declared, 'GET /things')).toEqual({ a: { any: ['*'] } });
    expect(Object.keys(grantsOf(declared, 'GET /items/{id}'))).toEqual([name, 'a']);
  });

  const protoRole = `{"__proto__": ${JSON.stringify(readThings)}, "user": ${JSON.stringify(readThings)}}`;
  test.each([
    ['an object from JSON.parse', () => JSON.parse(protoRole) as unknown],
    ['an object given the key with Object.defineProperty', () => Object.defineProperty({ user: readThings }, '__proto__', { value: readThings, enumerable: true })],
    ['a JSON file', () => write('proto.json', protoRole)],
    ['a YAML file', () => write('proto.yaml', '__proto__:\n  /things:\n    read:any: ["*"]\nuser:\n  /things:\n    read:any: ["*"]\n')],
  ])('__proto__ as a role in %s is a ConfigError, not a role silently dropped', (_name, acl) => {
    const source = acl();
    const error = configError(() => compileAcl({ openapi: api(paths), acl: source }));
    expect(error.path).toBe('$.__proto__');
    expect(error.problem).toBe('__proto__ cannot be a role name');
    expect(error.fix).toContain('rename the role');
    if (typeof source === 'string') expect(error.file).toBe(source);
  });

  test('__proto__ in $extend, and prototype names as resource paths or grant keys, are ConfigErrors naming them', () => {
    const cases: [unknown, string, string][] = [
      [{ a: { $extend: ['__proto__'] } }, '$.a.$extend[0]', '__proto__ cannot be a role name'],
      [JSON.parse('{"a": {"__proto__": {"read:any": ["*"]}}}'), '$.a.__proto__', '__proto__ is not a path of the OpenAPI document'],
      [{ a: { constructor: { 'read:any': ['*'] } } }, '$.a.constructor', 'constructor is not a path of the OpenAPI document'],
      [JSON.parse('{"a": {"/things": {"__proto__": ["*"]}}}'), '$.a["/things"].__proto__', 'unknown action "__proto__"'],
      [{ a: { '/things': { toString: ['*'] } } }, '$.a["/things"].toString', 'unknown action "toString"'],
    ];
    for (const [acl, path, problem] of cases) {
      const error = configError(() => compileAcl({ openapi: api(paths), acl }));
      expect([error.path, error.problem]).toEqual([path, problem]);
    }
  });

  test('an object literal whose __proto__ key set the prototype is refused, not read without that key', () => {
    const role = configError(() => compileAcl({ openapi: api(paths), acl: { user: { __proto__: readThings, '/items/{id}': { 'read:own': ['*'] } } } }));
    expect(role.path).toBe('$.user');
    expect(role.problem).toContain('a "__proto__" key in an object literal sets the prototype');
    const grants = configError(() => compileAcl({ openapi: api(paths), acl: { user: { '/things': { __proto__: { 'read:any': ['*'] } } } } }));
    expect(grants.path).toBe('$.user["/things"]');
    expect(configError(() => compileAcl({ openapi: api(paths), acl: { __proto__: { user: readThings } } })).path).toBe('$');
  });
});

describe('invalid OpenAPI documents are ConfigErrors', () => {
  test('no bearer scheme', () => {
    const error = configError(() => compileAcl({ openapi: api(itemPath, { components: { securitySchemes: {} } }), acl: {} }));
    expect(error.path).toBe('$.components.securitySchemes');
    expect(error.fix).toContain('type: http, scheme: bearer');
  });

  test('several bearer schemes and none named', () => {
    const schemes = { a: { type: 'http', scheme: 'bearer' }, b: { type: 'http', scheme: 'bearer' } };
    expect(configError(() => compileAcl({ openapi: api(itemPath, { components: { securitySchemes: schemes } }), acl: {} })).problem).toContain('several bearer JWT schemes (a, b)');
    expect(compileAcl({ openapi: api(itemPath, { components: { securitySchemes: schemes } }), acl: {}, scheme: 'b' }).scheme).toBe('b');
  });

  test('a named scheme that does not exist, or is not bearer JWT', () => {
    expect(configError(() => compileAcl({ openapi: api(itemPath), acl: {}, scheme: 'other' })).fix).toBe('use one of: bearerAuth');
    const basic = { components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'basic' } } } };
    expect(configError(() => compileAcl({ openapi: api(itemPath, basic), acl: {}, scheme: 'bearerAuth' })).problem).toContain('not type: http with scheme: bearer');
    const opaque = { components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'opaque' } } } };
    expect(configError(() => compileAcl({ openapi: api(itemPath, opaque), acl: {} })).path).toBe('$.components.securitySchemes.bearerAuth.bearerFormat');
  });

  test('not OpenAPI 3.0 or 3.1', () => {
    const error = configError(() => compileAcl({ openapi: { ...api(itemPath), openapi: '2.0' }, acl: {} }));
    expect(error.path).toBe('$.openapi');
  });

  test('a path template parameter without a definition', () => {
    const error = configError(() => compileAcl({ openapi: api({ '/items/{id}': { get: {} } }), acl: {} }));
    expect(error.path).toBe('$.paths["/items/{id}"].get.parameters');
    expect(error.problem).toContain('{id} has no definition');
  });

  test('a path parameter that is not in the template', () => {
    const error = configError(() => compileAcl({ openapi: api({ '/items': { get: { parameters: [{ name: 'id', in: 'path', required: true }] } } }), acl: {} }));
    expect(error.problem).toContain('path parameter id is not in the path /items');
  });

  test('a style not allowed for the parameter location', () => {
    const error = configError(() => compileAcl({ openapi: api({ '/items/{id}': { get: { parameters: [{ name: 'id', in: 'path', style: 'form' }] } } }), acl: {} }));
    expect(error.path).toBe('$.paths["/items/{id}"].get.parameters[0].style');
  });

  test('a parameter with an unknown location', () => {
    const error = configError(() => compileAcl({ openapi: api({ '/items': { get: { parameters: [{ name: 'id', in: 'body' }] } } }), acl: {} }));
    expect(error.path).toBe('$.paths["/items"].get.parameters[0].in');
  });

  test('an empty x-acl-binding', () => {
    const error = configError(() => compileAcl({ openapi: api({ '/items': { get: { parameters: [{ name: 'id', in: 'query', 'x-acl-binding': '' }] } } }), acl: {} }));
    expect(error.path).toBe('$.paths["/items"].get.parameters[0]["x-acl-binding"]');
  });

  test('a guarded OPTIONS operation has no action', () => {
    const error = configError(() => compileAcl({ openapi: api({ '/a': { options: {} } }), acl: {} }));
    expect(error.problem).toBe('OPTIONS has no ACL action');
  });
});

describe('scopes', () => {
  const oauth = { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://idp.example/token', scopes: { 'accounts:read': 'read', 'accounts:write': 'write' } } } };
  const oidc = { type: 'openIdConnect', openIdConnectUrl: 'https://idp.example/.well-known/openid-configuration' };
  const acl = { anonymous: {}, user: { '/accounts': { 'read:any': ['*'] } } };
  const scoped = (security: unknown, schemes: Record<string, unknown> = { oauth }, extra: Record<string, unknown> = {}) => ({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    components: { securitySchemes: schemes },
    paths: { '/accounts': { get: { security } }, '/status': { get: { security: [] } } },
    ...extra,
  });

  test('an oauth2 scheme is guarded, and each operation records the scopes of its requirements', () => {
    const data = compileAcl({ openapi: scoped([{ oauth: ['accounts:read'] }]), acl });
    expect(data.scheme).toBe('oauth');
    expect(data.operations['GET /accounts']).toMatchObject({ secured: true, scopes: [['accounts:read']] });
    expect(data.operations['GET /status']).toMatchObject({ secured: false, scopes: [] });
  });

  test('an openIdConnect scheme is guarded too', () => {
    const data = compileAcl({ openapi: scoped([{ oidc: ['openid', 'accounts:read'] }], { oidc }), acl });
    expect(data.scheme).toBe('oidc');
    expect(data.operations['GET /accounts']!.scopes).toEqual([['accounts:read', 'openid']]);
  });

  test('an http bearer scheme may list scopes (OpenAPI 3.1), read from the document-level security too', () => {
    const bearer = { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' };
    const document = { ...scoped(undefined, { bearer }), paths: { '/accounts': { get: {} } }, security: [{ bearer: ['accounts:read'] }] };
    expect(compileAcl({ openapi: document, acl }).operations['GET /accounts']!.scopes).toEqual([['accounts:read']]);
  });

  test('with an http bearer and an oauth2 scheme, the scheme option says which to guard', () => {
    const schemes = { oauth, bearer: { type: 'http', scheme: 'bearer' } };
    const error = configError(() => compileAcl({ openapi: scoped([{ oauth: ['accounts:read'] }], schemes), acl }));
    expect(error.problem).toBe('several bearer JWT schemes (oauth, bearer)');
    expect(error.fix).toBe('name the one to guard with the scheme option');
    expect(compileAcl({ openapi: scoped([{ oauth: ['accounts:read'] }], schemes), acl, scheme: 'oauth' }).operations['GET /accounts']!.secured).toBe(true);
  });

  test('alternatives: each requirement is one, sorted and each once; one that needs no scope means none is needed', () => {
    const twice = compileAcl({ openapi: scoped([{ oauth: ['b', 'a', 'a'] }, { oauth: ['a', 'b'] }, { oauth: ['c'] }]), acl });
    expect(twice.operations['GET /accounts']!.scopes).toEqual([['a', 'b'], ['c']]);
    const optional = compileAcl({ openapi: scoped([{ oauth: ['a'] }, { oauth: [] }]), acl });
    expect(optional.operations['GET /accounts']!.scopes).toEqual([]);
  });

  test('only the guarded scheme lists token scopes; requirements without it add no alternative', () => {
    const apiKey = { type: 'apiKey', in: 'header', name: 'x-key' };
    const data = compileAcl({ openapi: scoped([{ oauth: ['a'], apiKey: ['not a scope'] }, { apiKey: [] }], { oauth, apiKey }), acl });
    expect(data.operations['GET /accounts']!.scopes).toEqual([['a']]);
  });

  test('requiredScopes are added to every alternative of every guarded operation', () => {
    const listed = compileAcl({ openapi: scoped([{ oauth: ['a'] }, { oauth: ['b', 'api'] }]), acl, requiredScopes: ['api'] });
    expect(listed.operations['GET /accounts']!.scopes).toEqual([['a', 'api'], ['api', 'b']]);
    const none = compileAcl({ openapi: scoped([{ oauth: [] }]), acl, requiredScopes: ['api'] });
    expect(none.operations['GET /accounts']!.scopes).toEqual([['api']]);
    expect(none.operations['GET /status']!.scopes).toEqual([]);
  });

  test.each([
    ['empty', '', '""'],
    ['with a space', 'accounts read', '"accounts read"'],
    ['with a double quote', 'say"hi', '"say\\"hi"'],
    ['with a backslash', 'a\\b', '"a\\\\b"'],
    ['outside ASCII', 'comptes:lire\u00e9', '"comptes:lire\\u00e9"'],
    ['with a control character', 'a\tb', '"a\\tb"'],
  ])('a scope %s is a ConfigError pointing at it, shown quoted in printable ASCII', (_name, scope, shown) => {
    const error = configError(() => compileAcl({ openapi: scoped([{ oauth: ['accounts:read', scope] }]), acl }));
    expect(error.path).toBe('$.paths["/accounts"].get.security[0].oauth[1]');
    expect(error.problem).toContain(`${shown} is not a scope`);
    expect(error.fix).toContain('RFC 6749');
  });

  test('a bad scope in the document-level security points there', () => {
    const document = { ...scoped(undefined), paths: { '/accounts': { get: {} } }, security: [{ oauth: ['a b'] }] };
    expect(configError(() => compileAcl({ openapi: document, acl })).path).toBe('$.security[0].oauth[0]');
  });

  test('bad requiredScopes are a ConfigError of the options', () => {
    const error = configError(() => compileAcl({ openapi: scoped([{ oauth: [] }]), acl, requiredScopes: ['ok', 'not ok'] }));
    expect(error.file).toBe('<compileAcl options>');
    expect(error.path).toBe('$.requiredScopes[1]');
    expect(configError(() => compileAcl({ openapi: scoped([{ oauth: [] }]), acl, requiredScopes: 'api' as unknown as string[] })).path).toBe('$.requiredScopes');
  });

  test('requirements that differ in both their other schemes and their scopes are refused', () => {
    const apiKey = { type: 'apiKey', in: 'header', name: 'x-key' };
    const error = configError(() => compileAcl({ openapi: scoped([{ oauth: ['a'] }, { oauth: [], apiKey: [] }], { oauth, apiKey }), acl }));
    expect(error.path).toBe('$.paths["/accounts"].get.security');
    expect(error.problem).toContain('different scopes and different other schemes');
    // Same scopes, or the same other schemes: the scopes needed do not depend on which was met.
    expect(compileAcl({ openapi: scoped([{ oauth: ['a'] }, { oauth: ['a'], apiKey: [] }], { oauth, apiKey }), acl }).operations['GET /accounts']!.scopes).toEqual([['a']]);
    expect(compileAcl({ openapi: scoped([{ oauth: ['a'], apiKey: [] }, { oauth: ['b'], apiKey: [] }], { oauth, apiKey }), acl }).operations['GET /accounts']!.scopes).toEqual([['a'], ['b']]);
  });
});

describe('claim paths in x-acl-binding', () => {
  const bound = (binding: unknown) => api({ '/items': { get: { parameters: [{ name: 'id', in: 'query', schema: { type: 'integer' }, 'x-acl-binding': binding }] } } });

  test.each([['realm_access.roles'], ['["https://example.com/ids"]'], ['resource_access["my-api"].ids'], ['cognito:ids'], ['["a\\"b"]']])('%s is a valid binding, kept as written', (binding) => {
    expect(compileAcl({ openapi: bound(binding), acl: { anonymous: {} } }).operations['GET /items']!.params['query:id']!.binding).toBe(binding);
  });

  test.each([
    ['a trailing dot', 'realm_access.', 'the path ends with a dot'],
    ['a leading dot', '.roles', 'empty name at character 1'],
    ['two dots', 'a..b', 'empty name at character 3'],
    ['a dot before a bracket', 'a.["b"]', 'empty name at character 3'],
    ['an unclosed bracket', 'a["b', 'is not closed'],
    ['a bracket without ]', 'a["b"', 'is not followed by ]'],
    ['a list index', 'ids[0]', 'is not followed by a double-quoted name'],
    ['an empty quoted name', 'a[""]', 'empty name'],
    ['a bad escape', '["a\\x"]', 'not a valid JSON string'],
    ['a space', 'realm access', 'unexpected " "'],
    ['a URL written without brackets', 'https://example.com/ids', 'reads as the claim "https://example" holding "com/ids"'],
  ])('%s is a ConfigError pointing at the binding', (_name, binding, problem) => {
    const error = configError(() => compileAcl({ openapi: bound(binding), acl: { anonymous: {} } }));
    expect(error.path).toBe('$.paths["/items"].get.parameters[0]["x-acl-binding"]');
    expect(error.problem).toContain(problem);
  });

  test('the URL mistake suggests the bracket form', () => {
    expect(configError(() => compileAcl({ openapi: bound('https://example.com/ids'), acl: { anonymous: {} } })).problem).toContain('write it in brackets: ["https://example.com/ids"]');
  });

  test('a body property binding is checked the same way', () => {
    const body = { requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { owner: { type: 'string', 'x-acl-binding': 'a..b' } } } } } } };
    const error = configError(() => compileAcl({ openapi: api({ '/items': { post: body } }), acl: { anonymous: {} } }));
    expect(error.path).toBe('$.paths["/items"].post.requestBody.content["application/json"].schema.properties.owner["x-acl-binding"]');
    expect(error.problem).toContain('empty name at character 3');
  });
});

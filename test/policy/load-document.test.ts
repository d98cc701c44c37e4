import fs, { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDocument, type LoadedDocument } from '../../src/policy/compile/documents/load-document';
import { resolveRefs } from '../../src/policy/compile/documents/resolve-refs';
import { configErrorOf } from '../helpers/config-error-of';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svcgate-load-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const inline = (value: Record<string, unknown>): LoadedDocument => ({ value, file: '<inline OpenAPI document>', dir, bytes: 0 });

describe('loadDocument', () => {
  test('reads a JSON file, with its absolute path and folder', () => {
    const path = write('acl.json', '{"user": {"read": ["own"]}}');
    expect(loadDocument(path, 'ACL')).toEqual({ value: { user: { read: ['own'] } }, file: path, dir, bytes: 27 });
  });

  test('resolves a relative path against the working directory', () => {
    write('relative.json', '{"a": 1}');
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect(loadDocument('relative.json', 'ACL')).toEqual({ value: { a: 1 }, file: join(dir, 'relative.json'), dir, bytes: 8 });
    } finally {
      process.chdir(cwd);
    }
  });

  test('reads YAML files, .yaml and .yml in any case', () => {
    expect(loadDocument(write('api.yaml', 'openapi: 3.1.0\npaths:\n  /users: {}\n'), 'OpenAPI document').value).toEqual({ openapi: '3.1.0', paths: { '/users': {} } });
    expect(loadDocument(write('acl.YML', 'admin:\n  - "*"\n'), 'ACL').value).toEqual({ admin: ['*'] });
  });

  test('skips a byte-order mark in JSON', () => {
    expect(loadDocument(write('bom.json', '\uFEFF{"a": true}'), 'ACL').value).toEqual({ a: true });
  });

  test('takes an object as it is, named inline and without a folder', () => {
    const value = { openapi: '3.0.3' };
    const loaded = loadDocument(value, 'OpenAPI document');
    expect(loaded).toEqual({ value, file: '<inline OpenAPI document>', dir: null, bytes: 0 });
    expect(loaded.value).toBe(value);
    expect(loadDocument(Object.create(null) as object, 'ACL').file).toBe('<inline ACL>');
  });

  test.each([
    [42, 'the ACL is a number'],
    [null, 'the ACL is null'],
    [undefined, 'the ACL is empty'],
    [[{ a: 1 }], 'the ACL is a list'],
    [new Date(0), 'the ACL is a Date'],
    [new Map(), 'the ACL is a Map'],
  ])('rejects %p as a source', (source, problem) => {
    const error = configErrorOf(() => loadDocument(source, 'ACL'));
    expect(error.file).toBe('<inline ACL>');
    expect(error.path).toBe('$');
    expect(error.problem).toBe(problem);
    expect(error.fix).toBe('pass an object or the path of a .json, .yaml or .yml file');
  });

  test('a missing file names its absolute path', () => {
    const path = join(dir, 'missing.yaml');
    const error = configErrorOf(() => loadDocument(path, 'ACL'));
    expect(error.file).toBe(path);
    expect(error.path).toBe('$');
    expect(error.problem).toBe('cannot read the ACL (ENOENT)');
    expect(error.message).toBe(`${path} at $: cannot read the ACL (ENOENT). Fix: check the path and the file permissions`);
  });

  test('a folder is not a readable file', () => {
    fs.mkdirSync(join(dir, 'folder.json'));
    expect(configErrorOf(() => loadDocument(join(dir, 'folder.json'), 'ACL')).problem).toBe('cannot read the ACL (EISDIR)');
  });

  test('an unknown extension', () => {
    const path = write('acl.txt', '{}');
    const error = configErrorOf(() => loadDocument(path, 'ACL'));
    expect(error.file).toBe(path);
    expect(error.problem).toBe('cannot tell the format of the ACL from the extension ".txt"');
    expect(error.fix).toBe('use a .json, .yaml or .yml file');
  });

  test('invalid JSON gives the line and column', () => {
    const path = write('bad.json', '{\n  "a": [1, 2}\n}');
    const error = configErrorOf(() => loadDocument(path, 'OpenAPI document'));
    expect(error.file).toBe(path);
    expect(error.problem).toMatch(/^invalid JSON at line 2, column 13: /);
    expect(error.message).toContain('at line 2, column 13');
    expect(error.fix).toBe('correct the JSON syntax there');
  });

  test('truncated JSON is placed at its end', () => {
    expect(configErrorOf(() => loadDocument(write('short.json', '{\n  "a": '), 'ACL')).problem).toBe('invalid JSON at line 2, column 8: Unexpected end of JSON input');
  });

  test('invalid YAML gives the line and column', () => {
    const path = write('bad.yaml', 'a: 1\nb: [2\n');
    const error = configErrorOf(() => loadDocument(path, 'ACL'));
    expect(error.file).toBe(path);
    expect(error.problem).toMatch(/^invalid YAML at line 3, column 1: /);
    expect(error.fix).toBe('correct the YAML syntax there');
  });

  test('duplicate YAML keys are an error, not a silent overwrite', () => {
    const error = configErrorOf(() => loadDocument(write('dup.yaml', 'user:\n  read: [own]\nuser:\n  read: [any]\n'), 'ACL'));
    expect(error.problem).toMatch(/^invalid YAML at line 3, column 1: duplicated mapping key/);
  });

  test('YAML cannot build JavaScript functions', () => {
    expect(configErrorOf(() => loadDocument(write('fn.yaml', 'a: !!js/function "function () {}"\n'), 'ACL')).problem).toContain('unknown tag');
  });

  test.each([
    ['list.json', '[1, 2]', 'the ACL is a list'],
    ['string.yaml', 'hello\n', 'the ACL is a string'],
    ['number.json', '7', 'the ACL is a number'],
    ['null.json', 'null', 'the ACL is null'],
    ['empty.yaml', '', 'the ACL is empty'],
  ])('the top level of %s must be an object', (name, text, problem) => {
    const path = write(name, text);
    const error = configErrorOf(() => loadDocument(path, 'ACL'));
    expect(error.file).toBe(path);
    expect(error.path).toBe('$');
    expect(error.problem).toBe(problem);
    expect(error.fix).toBe('the top level must be an object');
  });
});

describe('resolveRefs', () => {
  test('replaces local refs to parameters, path items and schemas, also chains of refs', () => {
    const doc = {
      paths: {
        '/users': { $ref: '#/components/pathItems/Users' },
        '/users/{id}': { get: { parameters: [{ $ref: '#/components/parameters/Id' }], responses: { 200: { $ref: '#/components/responses/User' } } } },
      },
      components: {
        pathItems: { Users: { get: { operationId: 'listUsers' } } },
        parameters: { Id: { $ref: '#/components/parameters/UserId' }, UserId: { name: 'id', in: 'path', required: true } },
        responses: { User: { content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } } } },
        schemas: { User: { type: 'object', properties: { name: { type: 'string' } } } },
      },
    };
    const resolved = resolveRefs(inline(doc)) as { paths: Record<string, unknown>; components: { parameters: unknown } };
    expect(resolved.paths['/users']).toEqual({ get: { operationId: 'listUsers' } });
    expect(resolved.paths['/users/{id}']).toEqual({
      get: {
        parameters: [{ name: 'id', in: 'path', required: true }],
        responses: { 200: { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } } } } } } },
      },
    });
    expect(resolved.components.parameters).toEqual({ Id: { name: 'id', in: 'path', required: true }, UserId: { name: 'id', in: 'path', required: true } });
  });

  test('reads JSON pointer escapes (~0, ~1) and percent-encoding', () => {
    const doc = {
      paths: { '/users/{id}': { get: { operationId: 'getUser' } }, 'a~b': { x: 1 } },
      plain: { $ref: '#/paths/~1users~1{id}' },
      encoded: { $ref: '#/paths/~1users~1%7Bid%7D/get' },
      tilde: { $ref: '#/paths/a~0b' },
    };
    expect(resolveRefs(inline(doc))).toMatchObject({ plain: { get: { operationId: 'getUser' } }, encoded: { operationId: 'getUser' }, tilde: { x: 1 } });
  });

  test('indexes arrays by number only', () => {
    const doc = { list: ['zero', 'one'], second: { $ref: '#/list/1' }, length: { $ref: '#/list/length' } };
    expect(resolveRefs(inline({ list: doc.list, second: doc.second }))).toEqual({ list: ['zero', 'one'], second: 'one' });
    const error = configErrorOf(() => resolveRefs(inline(doc)));
    expect(error.path).toBe('$.length.$ref');
    expect(error.problem).toBe('$ref "#/list/length" points at nothing');
  });

  test('siblings of a $ref win over the target (OpenAPI 3.1 summary and description)', () => {
    const doc = { a: { $ref: '#/b', description: 'mine' }, b: { description: 'theirs', type: 'string' } };
    expect(resolveRefs(inline(doc))).toEqual({ a: { description: 'mine', type: 'string' }, b: { description: 'theirs', type: 'string' } });
  });

  test('follows relative refs into another file, and refs inside it, reading it once', () => {
    write('common.yaml', 'components:\n  parameters:\n    Id:\n      $ref: "#/components/parameters/Base"\n    Base:\n      name: id\n      in: path\n');
    write('user.json', '{"type": "object", "properties": {"id": {"type": "string"}}}');
    const main = write('main.yaml', 'a:\n  $ref: "common.yaml#/components/parameters/Id"\nb:\n  $ref: "./common.yaml#/components/parameters/Base"\nuser:\n  $ref: user.json\n');
    const open = jest.spyOn(fs, 'openSync');
    try {
      const resolved = resolveRefs(loadDocument(main, 'OpenAPI document'));
      expect(resolved).toEqual({ a: { name: 'id', in: 'path' }, b: { name: 'id', in: 'path' }, user: { type: 'object', properties: { id: { type: 'string' } } } });
      expect(open.mock.calls.map(([path]) => path)).toEqual([main, join(dir, 'common.yaml'), join(dir, 'user.json')]);
    } finally {
      open.mockRestore();
    }
  });

  test('an inline document resolves relative refs against the working directory', () => {
    write('shared.json', '{"schemas": {"Id": {"type": "integer"}}}');
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect(resolveRefs(loadDocument({ id: { $ref: 'shared.json#/schemas/Id' } }, 'OpenAPI document'))).toEqual({ id: { type: 'integer' } });
    } finally {
      process.chdir(cwd);
    }
  });

  test('a recursive schema terminates, with {} at the cycle', () => {
    const doc = {
      components: { schemas: { Node: { type: 'object', properties: { value: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } } } },
      root: { $ref: '#/components/schemas/Node' },
    };
    const resolved = resolveRefs(inline(doc)) as { root: unknown };
    expect(resolved.root).toEqual({ type: 'object', properties: { value: { type: 'string' }, children: { type: 'array', items: {} } } });
  });

  test('two schemas that refer to each other: the one met second holds the {}, wherever it is used (each object is resolved once, as first met)', () => {
    const schemas = (first: string, second: string) => ({
      [first]: { properties: { [second.toLowerCase()]: { $ref: `#/components/schemas/${second}` } } },
      [second]: { properties: { [first.toLowerCase()]: { $ref: `#/components/schemas/${first}` }, id: { type: 'string' } } },
    });
    const resolved = resolveRefs(inline({ components: { schemas: schemas('A', 'B') }, direct: { $ref: '#/components/schemas/B' } })) as { components: { schemas: Record<string, unknown> }; direct: unknown };
    const b = { properties: { a: {}, id: { type: 'string' } } };
    expect(resolved.components.schemas).toEqual({ A: { properties: { b } }, B: b });
    expect(resolved.direct).toBe(resolved.components.schemas.B);
    // Written the other way round, B is met first, and A holds the {}.
    const reversed = resolveRefs(inline({ components: { schemas: schemas('B', 'A') } })) as { components: { schemas: Record<string, unknown> } };
    expect(reversed.components.schemas).toEqual({ B: { properties: { a: { properties: { b: {}, id: { type: 'string' } } } } }, A: { properties: { b: {}, id: { type: 'string' } } } });
  });

  test('a cycle across two files terminates too', () => {
    write('a.yaml', 'A:\n  type: object\n  properties:\n    b:\n      $ref: "b.yaml#/B"\n');
    write('b.yaml', 'B:\n  type: object\n  properties:\n    a:\n      $ref: "a.yaml#/A"\n');
    const main = write('cycle.yaml', 'start:\n  $ref: "a.yaml#/A"\n');
    expect(resolveRefs(loadDocument(main, 'OpenAPI document'))).toEqual({
      start: { type: 'object', properties: { b: { type: 'object', properties: { a: {} } } } },
    });
  });

  test('a missing target names the file and the JSON path of the $ref', () => {
    const main = write('broken.yaml', 'paths:\n  /users/{id}:\n    get:\n      parameters:\n        - $ref: "#/components/parameters/Nope"\n');
    const error = configErrorOf(() => resolveRefs(loadDocument(main, 'OpenAPI document')));
    expect(error.file).toBe(main);
    expect(error.path).toBe('$.paths["/users/{id}"].get.parameters[0].$ref');
    expect(error.problem).toBe('$ref "#/components/parameters/Nope" points at nothing');
    expect(error.message).toContain(main);
    expect(error.message).toContain('$.paths["/users/{id}"].get.parameters[0].$ref');
    expect(error.fix).toBe('point it at an existing object, e.g. "#/components/schemas/Name"');
  });

  test('a broken $ref inside a referenced file is reported in that file, at its own path', () => {
    write('lib.yaml', 'schemas:\n  User:\n    properties:\n      group:\n        $ref: "#/schemas/Group"\n');
    const main = write('uses-lib.yaml', 'user:\n  $ref: "lib.yaml#/schemas/User"\n');
    const error = configErrorOf(() => resolveRefs(loadDocument(main, 'OpenAPI document')));
    expect(error.file).toBe(join(dir, 'lib.yaml'));
    expect(error.path).toBe('$.schemas.User.properties.group.$ref');
  });

  test('a ref to a file that cannot be read is reported at the $ref', () => {
    const error = configErrorOf(() => resolveRefs(inline({ paths: { '/a': { $ref: 'nowhere.yaml#/x' } } })));
    expect(error.file).toBe('<inline OpenAPI document>');
    expect(error.path).toBe('$.paths["/a"].$ref');
    expect(error.problem).toBe(`$ref "nowhere.yaml#/x": cannot read the referenced document (ENOENT) in ${JSON.stringify(join(dir, 'nowhere.yaml'))}`);
    expect(error.fix).toBe('check the path and the file permissions');
  });

  test('a $ref that is not a string, or whose fragment is not a pointer', () => {
    const notString = configErrorOf(() => resolveRefs(inline({ a: { $ref: 5 } })));
    expect(notString.path).toBe('$.a.$ref');
    expect(notString.problem).toBe('$ref must be a string');
    expect(configErrorOf(() => resolveRefs(inline({ a: { $ref: '#anchor' } }))).problem).toBe('$ref "#anchor" has a fragment that is not a JSON pointer');
  });

  test.each(['https://example.com/api.yaml#/components/schemas/User', 'http://example.com/user.json'])('refuses the network ref %s', (ref) => {
    const error = configErrorOf(() => resolveRefs(inline({ a: { $ref: ref } })));
    expect(error.path).toBe('$.a.$ref');
    expect(error.problem).toBe(`$ref ${JSON.stringify(ref)} points outside the file system`);
    expect(error.fix).toBe('bundle the document into local files; svcgate does not fetch over the network');
  });

  test('does not mutate the input and shares nothing with it', () => {
    const doc = {
      paths: { '/a': { get: { parameters: [{ $ref: '#/components/parameters/Id' }] } } },
      components: { parameters: { Id: { name: 'id', in: 'query', schema: { type: 'string' } } } },
    };
    const before = structuredClone(doc);
    const resolved = resolveRefs(inline(doc)) as typeof doc & { paths: { '/a': { get: { parameters: { schema: object }[] } } } };
    expect(doc).toEqual(before);
    expect(resolved.components).not.toBe(doc.components);
    expect(resolved.paths['/a'].get.parameters[0]!.schema).not.toBe(doc.components.parameters.Id.schema);
  });

  test('keeps YAML timestamps as dates', () => {
    const main = write('dated.yaml', 'schema:\n  type: string\n  example: 2024-01-31\n');
    expect(resolveRefs(loadDocument(main, 'OpenAPI document'))).toEqual({ schema: { type: 'string', example: new Date('2024-01-31T00:00:00.000Z') } });
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/policy';
import { loadDocument } from '../../src/policy/load-document';
import { resolveRefs } from '../../src/policy/resolve-refs';

const dir = mkdtempSync(join(tmpdir(), 'svcgate-docs-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadDocument', () => {
  test('reads JSON and YAML files, and takes objects as they are', () => {
    expect(loadDocument(file('a.json', '{"a": 1}'), 'ACL')).toEqual({ value: { a: 1 }, file: join(dir, 'a.json'), dir });
    expect(loadDocument(file('b.yaml', 'a:\n  - 1\n'), 'ACL').value).toEqual({ a: [1] });
    expect(loadDocument(file('c.YML', 'a: x\n'), 'ACL').value).toEqual({ a: 'x' });
    const value = { a: 1 };
    expect(loadDocument(value, 'ACL')).toEqual({ value, file: '<inline ACL>', dir: null });
  });

  test('a missing file names the absolute path', () => {
    const error = configError(() => loadDocument(join(dir, 'missing.json'), 'ACL'));
    expect(error.file).toBe(join(dir, 'missing.json'));
    expect(error.problem).toBe('cannot read the ACL (ENOENT)');
  });

  test('an unknown extension', () => {
    expect(configError(() => loadDocument(file('acl.txt', '{}'), 'ACL')).fix).toBe('use a .json, .yaml or .yml file');
  });

  test('invalid JSON says where', () => {
    expect(configError(() => loadDocument(file('bad.json', '{\n  "a": [1, 2}'), 'ACL')).problem).toMatch(/^invalid JSON at line 2, column 13: /);
  });

  test('invalid YAML says the line and column', () => {
    expect(configError(() => loadDocument(file('bad.yaml', 'a: 1\nb: [2\n'), 'ACL')).problem).toMatch(/^invalid YAML at line 3, column 1: /);
  });

  test('duplicate YAML keys are an error, not a silent overwrite', () => {
    expect(configError(() => loadDocument(file('dup.yaml', 'user: {}\nuser: {}\n'), 'ACL')).problem).toContain('duplicated mapping key');
  });

  test('YAML cannot build functions or classes', () => {
    expect(configError(() => loadDocument(file('fn.yaml', 'a: !!js/function "function () {}"\n'), 'ACL')).problem).toContain('unknown tag');
  });

  test('the top level must be an object', () => {
    expect(configError(() => loadDocument(file('list.json', '[1]'), 'ACL')).problem).toBe('the ACL is a list');
    expect(configError(() => loadDocument(file('scalar.yaml', 'hello\n'), 'ACL')).problem).toBe('the ACL is a string');
    expect(configError(() => loadDocument(42, 'ACL')).problem).toBe('the ACL is a number');
    expect(configError(() => loadDocument(null, 'ACL')).problem).toBe('the ACL is null');
  });
});

describe('resolveRefs', () => {
  const resolveObject = (value: Record<string, unknown>) => resolveRefs({ value, file: '<inline doc>', dir });

  test('replaces local refs, also chains of refs, without touching the input', () => {
    const doc = {
      paths: { '/a': { $ref: '#/components/pathItems/A' } },
      components: {
        pathItems: { A: { get: { parameters: [{ $ref: '#/components/parameters/Id' }] } } },
        parameters: { Id: { $ref: '#/components/parameters/RealId' }, RealId: { name: 'id', in: 'query' } },
      },
    };
    const copy = JSON.parse(JSON.stringify(doc));
    const resolved = resolveObject(doc) as typeof doc & { paths: { '/a': { get: { parameters: unknown[] } } } };
    expect(resolved.paths['/a'].get.parameters).toEqual([{ name: 'id', in: 'query' }]);
    expect(doc).toEqual(copy);
  });

  test('reads JSON pointer escapes and percent-encoding', () => {
    const doc = { paths: { '/users/{id}': { get: { x: 1 } }, 'a~b': 2 }, ref1: { $ref: '#/paths/~1users~1%7Bid%7D/get' }, ref2: { $ref: '#/paths/a~0b' } };
    expect(resolveObject(doc)).toMatchObject({ ref1: { x: 1 }, ref2: 2 });
  });

  test('keeps siblings of a $ref over the target (OpenAPI 3.1 summary and description)', () => {
    const doc = { a: { description: 'mine', $ref: '#/b' }, b: { description: 'theirs', type: 'string' } };
    expect(resolveObject(doc)).toMatchObject({ a: { description: 'mine', type: 'string' } });
  });

  test('follows refs into relative files, and refs inside those files', () => {
    file('common.yaml', 'parameters:\n  Id:\n    $ref: "#/parameters/Base"\n  Base:\n    name: id\n    in: path\n');
    const main = file('main.yaml', 'p:\n  $ref: "common.yaml#/parameters/Id"\nwhole:\n  $ref: "./common.yaml"\n');
    const resolved = resolveRefs(loadDocument(main, 'OpenAPI document')) as { p: unknown; whole: { parameters: unknown } };
    expect(resolved.p).toEqual({ name: 'id', in: 'path' });
    expect(resolved.whole.parameters).toEqual({ Id: { name: 'id', in: 'path' }, Base: { name: 'id', in: 'path' } });
  });

  test('a recursive schema terminates: the recursion point becomes {}', () => {
    const doc = { schemas: { Node: { type: 'object', properties: { child: { $ref: '#/schemas/Node' } } } }, root: { $ref: '#/schemas/Node' } };
    expect(resolveObject(doc)).toMatchObject({ root: { type: 'object', properties: { child: {} } } });
  });

  test('a missing target names the file and the JSON path of the $ref', () => {
    const main = file('broken.yaml', 'paths:\n  /a:\n    get:\n      parameters:\n        - $ref: "#/components/parameters/Nope"\n');
    const error = configError(() => resolveRefs(loadDocument(main, 'OpenAPI document')));
    expect(error.file).toBe(main);
    expect(error.path).toBe('$.paths["/a"].get.parameters[0].$ref');
    expect(error.problem).toBe('$ref #/components/parameters/Nope points at nothing');
  });

  test('a missing referenced file is reported at the $ref', () => {
    const error = configError(() => resolveObject({ a: { $ref: 'nowhere.yaml#/x' } }));
    expect(error.path).toBe('$.a.$ref');
    expect(error.problem).toContain('cannot read the referenced document (ENOENT)');
  });

  test('network refs are refused', () => {
    expect(configError(() => resolveObject({ a: { $ref: 'https://example.com/api.yaml#/x' } })).fix).toContain('does not fetch over the network');
  });

  test('a $ref that is not a string, or a fragment that is not a pointer', () => {
    expect(configError(() => resolveObject({ a: { $ref: 5 } })).problem).toBe('$ref must be a string');
    expect(configError(() => resolveObject({ a: { $ref: '#anchor' } })).problem).toContain('not a JSON pointer');
  });
});

import { closeSync, ftruncateSync, openSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { compileAcl } from '../../src/policy';
import { configErrorOf } from '../helpers/config-error-of';
import { aliasFanOut, CountedRefs, documentFolders, keysReferringTo, OPENAPI_HEAD, PATHS, refPairs } from '../helpers/hostile-documents';
import { HS256 } from '../helpers/tokens';

// Issue 27, section 4: OpenAPI documents and ACLs come from pull requests in CI. Each hostile
// document is built here, a few hundred bytes; the limits make each refusal quick, and each test
// states what today's main did with it.
const ACL = { anonymous: {}, user: { '/a': { 'read:any': ['*'] } } };
const folder = documentFolders();

describe('shared parts are resolved once, and what a document expands to is capped', () => {
  test('7 levels of YAML aliases 12 wide (under 600 bytes, 35,831,808 values expanded) are refused by their count (main: 7-13 s, 600 MB, then compiled)', () => {
    const openapi = join(folder({ 'api.yaml': OPENAPI_HEAD + PATHS + aliasFanOut(7, 12) }), 'api.yaml');
    const error = configErrorOf(() => compileAcl({ openapi, acl: ACL }));
    expect(error.file).toBe(openapi);
    expect(error.problem).toBe('the OpenAPI document holds more than 5000000 values (the limit), counting each use of a YAML alias or $ref in full');
    expect(error.fix).toMatch(/YAML alias or \$ref used many times/);
  });

  test('the same limit holds for ACL files (main refused this one later, as a role that is not an object)', () => {
    const dir = folder({ 'api.yaml': OPENAPI_HEAD + PATHS, 'acl.yaml': aliasFanOut(7, 12) });
    const error = configErrorOf(() => compileAcl({ openapi: join(dir, 'api.yaml'), acl: join(dir, 'acl.yaml') }));
    expect(error.file).toBe(join(dir, 'acl.yaml'));
    expect(error.problem).toMatch(/^the ACL holds more than 5000000 values \(the limit\)/);
  });

  test('21 levels of $ref pairs (1.3 KB, 2^21 uses of the last) are refused by their count (main: 47-84 s, then compiled)', () => {
    const openapi = join(folder({ 'api.yaml': OPENAPI_HEAD + refPairs(21) + PATHS }), 'api.yaml');
    const error = configErrorOf(() => compileAcl({ openapi, acl: ACL }));
    expect(error.file).toBe(openapi);
    expect(error.path).toBe('$.components.schemas.s0.properties');
    expect(error.problem).toBe('this value, with its $refs resolved, holds more than 5000000 values (the limit), counting each use of a $ref or YAML alias in full');
  });

  test('8,000 $refs with a sibling to an object of 8,000 keys are refused at the 6th, once the count passes the cap (main: 34 s and 3 GB, each one copying the 8,000 keys before the count was checked)', () => {
    // Each key of x-big refers to a list of 100 values, so each use of x-big counts 800,001.
    const refs = new CountedRefs();
    const openapi = { ...jsonBase(), 'x-list': Array(99).fill(0), 'x-big': keysReferringTo(8000, '#/x-list'), 'x-refs': Array.from({ length: 8000 }, () => refs.to('#/x-big')) };
    const error = configErrorOf(() => compileAcl({ openapi, acl: ACL }));
    expect([error.file, error.path]).toEqual(['<inline OpenAPI document>', '$["x-refs"][5]']);
    expect(error.problem).toBe('the document, with its $refs resolved, passes 5000000 values (the limit) here, counting each use of a $ref or YAML alias in full');
    expect(refs.read).toBe(6);
  });

  test('nesting does not multiply that work: 500 lists each holding such a $ref and the next list are refused at the second (main: all 500 copied first)', () => {
    const refs = new CountedRefs();
    let nest: unknown[] = [];
    for (let level = 0; level < 500; level++) nest = [refs.to('#/x-big'), nest];
    // x-big is 4,800,001 values: under the cap once, over it twice.
    const openapi = { ...jsonBase(), 'x-nest': nest, 'x-list': Array(599).fill(0), 'x-big': keysReferringTo(8000, '#/x-list') };
    const error = configErrorOf(() => compileAcl({ openapi, acl: ACL }));
    expect(error.path).toBe('$["x-nest"]');
    expect(error.problem).toMatch(/^this value, with its \$refs resolved, holds more than 5000000 values \(the limit\)/);
    expect(refs.read).toBe(2);
  });

  test('a $ref written many times is followed once (main: its pointer walked at each use)', () => {
    let walked = 0;
    const schemas = { Id: { type: 'string' } };
    const components = {
      securitySchemes: { b: { type: 'http', scheme: 'bearer' } },
      get schemas() {
        walked++;
        return schemas;
      },
    };
    const uses = Array.from({ length: 1000 }, () => ({ $ref: '#/components/schemas/Id' }));
    expect(Object.keys(compileAcl({ openapi: { ...jsonBase(), components, 'x-uses': uses }, acl: ACL }).operations)).toEqual(['GET /a']);
    // Once as the document is walked, once to follow the $ref.
    expect(walked).toBe(2);
  });

  test('below the cap, each $ref target is read once however often it is referred to (main: once per use, 196,607 times here)', () => {
    let reads = 0;
    const last = {
      get type() {
        reads++;
        return 'string';
      },
    };
    const schemas: Record<string, unknown> = { s16: last };
    for (let level = 0; level < 16; level++) schemas[`s${level}`] = { properties: { a: { $ref: `#/components/schemas/s${level + 1}` }, b: { $ref: `#/components/schemas/s${level + 1}` } } };
    const openapi = {
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      security: [{ b: [] }],
      components: { securitySchemes: { b: { type: 'http', scheme: 'bearer' } }, schemas },
      paths: { '/a': { get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/s0' } } } } } } } },
    };
    expect(Object.keys(compileAcl({ openapi, acl: ACL }).operations)).toEqual(['GET /a']);
    expect(reads).toBe(1);
  });
});

describe('file references stay inside the document folder, unless refRoot names another', () => {
  const secret = '{"token": "s3cr3t-token"}';
  const withOperationId = (ref: string) => OPENAPI_HEAD + `paths:\n  /a:\n    get:\n      operationId: {$ref: '${ref}'}\n      responses: {"200": {description: ok}}\n`;

  test.each([
    ['a .. path', '../outside/credentials.json#/token', 'leads outside'],
    ['a percent-encoded .. path', '%2e%2e/outside/credentials.json#/token', 'leads outside'],
    ['a path that goes down and back up past the folder', 'schemas/../../outside/credentials.json#/token', 'leads outside'],
  ])('%s is refused, naming the file, the JSON path and the option (main: the token was the operation id in data.json)', (_name, ref, problem) => {
    const dir = folder({ 'outside/credentials.json': secret, 'api/api.yaml': withOperationId(ref) });
    const openapi = join(dir, 'api/api.yaml');
    const error = configErrorOf(() => compileAcl({ openapi, acl: ACL }));
    expect(error.file).toBe(openapi);
    expect(error.path).toBe('$.paths["/a"].get.operationId.$ref');
    expect(error.problem).toBe(`$ref ${JSON.stringify(ref)} ${problem} ${join(dir, 'api')}`);
    expect(error.fix).toMatch(/refRoot option \(--ref-root <dir> in the CLI\)/);
    expect(error.message).not.toContain('s3cr3t');
  });

  test('an absolute path is refused, even to a file inside the folder', () => {
    const dir = folder({ 'api/credentials.json': secret, 'outside/credentials.json': secret });
    for (const target of [join(dir, 'outside/credentials.json'), join(dir, 'api/credentials.json')]) {
      writeFileSync(join(dir, 'api/api.yaml'), withOperationId(`${target}#/token`));
      const error = configErrorOf(() => compileAcl({ openapi: join(dir, 'api/api.yaml'), acl: ACL }));
      expect(error.problem).toBe(`$ref ${JSON.stringify(`${target}#/token`)} is an absolute path`);
      expect(error.fix).toMatch(/^write it relative to the file that holds it/);
    }
  });

  test('a symbolic link inside the folder that leads out of it is refused, a file or a folder', () => {
    const dir = folder({ 'outside/credentials.json': secret, 'api/api.yaml': withOperationId('link.json#/token') });
    symlinkSync(join(dir, 'outside/credentials.json'), join(dir, 'api/link.json'));
    symlinkSync(join(dir, 'outside'), join(dir, 'api/shared'));
    const openapi = join(dir, 'api/api.yaml');
    expect(configErrorOf(() => compileAcl({ openapi, acl: ACL })).problem).toBe(`$ref "link.json#/token" leads outside ${join(dir, 'api')} through a symbolic link`);
    writeFileSync(openapi, withOperationId('shared/credentials.json#/token'));
    expect(configErrorOf(() => compileAcl({ openapi, acl: ACL })).problem).toBe(`$ref "shared/credentials.json#/token" leads outside ${join(dir, 'api')} through a symbolic link`);
  });

  test('files in subfolders, and their references back up to the folder, are inside', () => {
    const dir = folder({
      'api/api.yaml': withOperationId('schemas/ids.yaml#/getA'),
      'api/schemas/ids.yaml': 'getA: {$ref: "../names.json#/a"}\n',
      'api/names.json': '{"a": "getA"}',
    });
    expect(compileAcl({ openapi: join(dir, 'api/api.yaml'), acl: ACL }).operations['GET /a']!.operation_id).toBe('getA');
  });

  test('refRoot names a wider folder: compileAcl and bearerJwtAcl take it (a relative one against the working directory)', () => {
    const dir = folder({ 'outside/credentials.json': '{"token": "from-outside"}', 'api/api.yaml': withOperationId('../outside/credentials.json#/token') });
    const openapi = join(dir, 'api/api.yaml');
    expect(compileAcl({ openapi, acl: ACL, refRoot: dir }).operations['GET /a']!.operation_id).toBe('from-outside');
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect(compileAcl({ openapi, acl: ACL, refRoot: '.' }).operations['GET /a']!.operation_id).toBe('from-outside');
    } finally {
      process.chdir(cwd);
    }
    const options = { openapi, handler: bearerJwt({ ...HS256, audience: 'api' }), acl: { b: ACL } };
    expect(configErrorOf(() => bearerJwtAcl(options)).problem).toBe(`$ref "../outside/credentials.json#/token" leads outside ${join(dir, 'api')}`);
    expect(typeof bearerJwtAcl({ ...options, refRoot: dir })).toBe('function');
    const bad = configErrorOf(() => bearerJwtAcl({ ...options, refRoot: 7 as unknown as string }));
    expect([bad.file, bad.path, bad.problem]).toEqual(['<bearerJwtAcl options>', '$.refRoot', 'refRoot must be the path of a folder']);
    expect(configErrorOf(() => compileAcl({ openapi, acl: ACL, refRoot: '' })).path).toBe('$.refRoot');
  });

  test.each([
    ['a newline and a workflow command', '#/nope\n::error file=api.json::pwned', '$ref "#/nope\\n::error file=api.json::pwned" points at nothing'],
    ['a bidi override', 'https://example.com/\u202eevil.json', '$ref "https://example.com/\\u202eevil.json" points outside the file system'],
    ['a C1 control', '../\u009b31m/x.json', '$ref "../\\u009b31m/x.json" leads outside'],
    ['a bidi isolate', '/tmp/\u2066x.json', '$ref "/tmp/\\u2066x.json" is an absolute path'],
    ['an escape sequence, also in the file name shown', '\u001b[2J.json#/a', '$ref "\\u001b[2J.json#/a": cannot read the referenced document (ENOENT) in "'],
  ])('a $ref is quoted in messages, every character outside printable ASCII escaped: %s (main: written as it is, reaching CI logs)', (_name, ref, problem) => {
    const dir = folder({ 'api.json': JSON.stringify({ ...jsonBase(), 'x-ref': { $ref: ref } }) });
    const error = configErrorOf(() => compileAcl({ openapi: join(dir, 'api.json'), acl: ACL }));
    expect(error.problem.startsWith(problem)).toBe(true);
    expect(error.message).toMatch(/^[\x20-\x7e]*$/);
  });

  test('URLs are not fetched: http, https and scheme-relative references are refused before any request', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.end('{"token": "fetched"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const dir = folder({});
      for (const ref of [`http://127.0.0.1:${port}/x.json#/token`, `HTTPS://127.0.0.1:${port}/x.json#/token`, `//127.0.0.1:${port}/x.json#/token`]) {
        writeFileSync(join(dir, 'api.yaml'), withOperationId(ref));
        const error = configErrorOf(() => compileAcl({ openapi: join(dir, 'api.yaml'), acl: ACL }));
        expect(error.path).toBe('$.paths["/a"].get.operationId.$ref');
      }
    } finally {
      server.close();
    }
    expect(requests).toBe(0);
  });
});

describe('documents of the same class', () => {
  test('a recursive schema given as an object that holds itself (as @oas-tools/core dereferences) compiles (main: RangeError, call stack exceeded)', () => {
    const node: Record<string, unknown> = { type: 'object', properties: {} };
    (node.properties as Record<string, unknown>).children = { type: 'array', items: node };
    const openapi = {
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      security: [{ b: [] }],
      components: { securitySchemes: { b: { type: 'http', scheme: 'bearer' } }, schemas: { Node: node } },
      paths: { '/a': { get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: node } } } } } } },
    };
    expect(Object.keys(compileAcl({ openapi, acl: ACL }).operations)).toEqual(['GET /a']);
  });

  test('a YAML alias inside its own anchor is refused where it recurs (main: RangeError, call stack exceeded)', () => {
    const openapi = join(folder({ 'api.yaml': OPENAPI_HEAD + PATHS + 'x-tree: &tree\n  children: [*tree]\n' }), 'api.yaml');
    const error = configErrorOf(() => compileAcl({ openapi, acl: ACL }));
    expect(error.file).toBe(openapi);
    expect(error.path).toBe('$["x-tree"].children[0]');
    expect(error.problem).toBe('the value at $["x-tree"] is here again, inside itself (a YAML alias inside its own anchor)');
  });

  test('a chain of 5,000 $refs is refused at 1,000 (main: RangeError, call stack exceeded)', () => {
    const chain = Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`c${index}`, { $ref: `#/x-chain/c${index + 1}` }]));
    const openapi = join(folder({ 'api.json': JSON.stringify({ ...(jsonBase() as object), 'x-chain': { ...chain, c5000: 'end' }, 'x-start': { $ref: '#/x-chain/c0' } }) }), 'api.json');
    const error = configErrorOf(() => compileAcl({ openapi, acl: ACL }));
    expect(error.problem).toBe('the document with its $refs followed is nested deeper than 1000 levels (the limit), each $ref counting as one');
    expect(error.path).toMatch(/^\$\["x-chain"\]\.c\d+$/);
  });

  test('JSON nested 10,000 levels is refused at 100, as js-yaml refuses YAML (main: RangeError, call stack exceeded)', () => {
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const openapi = join(folder({ 'api.json': JSON.stringify(jsonBase()).replace(/}$/, `,"x-deep":${deep}}`) }), 'api.json');
    const error = configErrorOf(() => compileAcl({ openapi, acl: ACL }));
    expect(error.problem).toBe('the OpenAPI document is nested deeper than 100 levels (the limit)');
    expect(error.path).toBe(`$["x-deep"]${'.a'.repeat(99)}`);
  });

  test('a $ref to a file over 64 MiB is refused before it is read (main: read whole, then "invalid JSON")', () => {
    const dir = folder({ 'api.yaml': OPENAPI_HEAD + 'paths:\n  /a: {$ref: "big.json#/a"}\n' });
    const fd = openSync(join(dir, 'big.json'), 'w');
    ftruncateSync(fd, 64 * 1024 * 1024 + 1);
    closeSync(fd);
    const error = configErrorOf(() => compileAcl({ openapi: join(dir, 'api.yaml'), acl: ACL }));
    expect(error.path).toBe('$.paths["/a"].$ref');
    expect(error.problem).toBe(`$ref "big.json#/a": the referenced document is 67108865 bytes, over the limit of 67108864 bytes in ${JSON.stringify(join(dir, 'big.json'))}`);
  });

  test('the files a document refers to count against 64 MiB together', () => {
    const half = `{"a": {"get": {}}, "pad": "${'x'.repeat(33 * 1024 * 1024)}"}`;
    const dir = folder({ 'api.yaml': OPENAPI_HEAD + 'paths:\n  /a: {$ref: "one.json#/a"}\n  /b: {$ref: "two.json#/a"}\n', 'one.json': half, 'two.json': half });
    const error = configErrorOf(() => compileAcl({ openapi: join(dir, 'api.yaml'), acl: ACL }));
    expect(error.path).toBe('$.paths["/b"].$ref');
    expect(error.problem).toMatch(/^\$ref "two\.json#\/a": with ".*two\.json" the document and the files it refers to hold \d+ bytes, over the limit of 67108864 bytes together$/);
  });

  test('a merge-key (<<) chain that would copy keys quadratically is refused by js-yaml', () => {
    let chain = 'x-0: &m0 {k0: 0}\n';
    for (let level = 1; level < 400; level++) chain += `x-${level}: &m${level} {<<: *m${level - 1}, k${level}: ${level}}\n`;
    const openapi = join(folder({ 'api.yaml': OPENAPI_HEAD + PATHS + chain }), 'api.yaml');
    expect(configErrorOf(() => compileAcl({ openapi, acl: ACL })).problem).toMatch(/^invalid YAML at line \d+, column \d+: merge keys exceeded maxTotalMergeKeys \(10000\)$/);
  });

  test('tags beyond the YAML types build nothing: a JavaScript function or an unknown tag is an error', () => {
    for (const tagged of ['x-f: !!js/function "function () { return 1 }"\n', 'x-c: !custom {a: 1}\n']) {
      const openapi = join(folder({ 'api.yaml': OPENAPI_HEAD + PATHS + tagged }), 'api.yaml');
      expect(configErrorOf(() => compileAcl({ openapi, acl: ACL })).problem).toMatch(/unknown tag/);
    }
  });

  test.each([
    ['an ACL grant key', { acl: { anonymous: {}, user: { '/a': { 're\u202ead:any': ['*'] } } } }, '$.user["/a"]["re\\u202ead:any"]', 'unknown action "re\\u202ead"'],
    ['the anonymous default', { openapi: { ...jsonBase(), 'x-acl-anonymous-default': 'none\u0085::error::x' } }, '$["x-acl-anonymous-default"]', 'the anonymous default is "none\\u0085::error::x"'],
    ['a scope', { openapi: { ...jsonBase(), security: [{ b: ['read\u009b31m'] }] } }, '$.security[0].b[0]', '"read\\u009b31m" is not a scope'],
    ['a bearerFormat', { openapi: { ...jsonBase(), components: { securitySchemes: { b: { type: 'http', scheme: 'bearer', bearerFormat: 'J\u2066WT' } } } } }, '$.components.securitySchemes.b.bearerFormat', 'bearerFormat is "J\\u2066WT"'],
  ])('keys and values of documents are quoted in printable ASCII in messages too: %s (main: JSON.stringify left C1 and bidi controls as they were)', (_name, options, path, problem) => {
    const error = configErrorOf(() => compileAcl({ openapi: jsonBase(), acl: ACL, ...options }));
    expect(error.path).toBe(path);
    expect(error.problem.startsWith(problem)).toBe(true);
    expect(error.message).toMatch(/^[\x20-\x7e]*$/);
  });

  test('__proto__ keys, in JSON and YAML, add no operation and touch no prototype', () => {
    const json = JSON.stringify(jsonBase()).replace('"/a":{', '"/a":{"__proto__":{"delete":{"responses":{}}},');
    const dir = folder({ 'api.json': json, 'api.yaml': OPENAPI_HEAD + PATHS + '    __proto__: {$ref: "#/x-more"}\nx-more: {delete: {responses: {}}}\nx-polluted: {__proto__: {polluted: true}}\n' });
    for (const name of ['api.json', 'api.yaml']) {
      const data = compileAcl({ openapi: join(dir, name), acl: ACL });
      expect(Object.keys(data.operations)).toEqual(['GET /a']);
      expect(data.scheme).toBe('b');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/** The smallest valid document, as an object, for JSON files. */
function jsonBase(): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    security: [{ b: [] }],
    components: { securitySchemes: { b: { type: 'http', scheme: 'bearer' } } },
    paths: { '/a': { get: { responses: { 200: { description: 'ok' } } } } },
  };
}

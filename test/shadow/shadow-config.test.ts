import { bearerJwt, bearerJwtAcl, type BearerJwtAclOptions } from '../../src/auth';
import { examplePermissions } from '../helpers/bundles';
import { configErrorOf } from '../helpers/config-error-of';
import { HS256 } from '../helpers/tokens';
import { EXAMPLE_OPENAPI } from '../helpers/bundles';
import { join } from 'node:path';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { load } from 'js-yaml';
import { readFileSync } from 'node:fs';

// A shadow option that cannot work is refused when the adapter is created, with where and how to fix it.

const create = (shadow: unknown, openapi: unknown = EXAMPLE_OPENAPI) =>
  bearerJwtAcl({ openapi, handler: bearerJwt({ ...HS256, audience: false }), acl: { bearerAuth: examplePermissions() }, shadow } as BearerJwtAclOptions);

test.each([
  ['no source', {}, '$.shadow.source', /shadow.source is the candidate/],
  ['a null source', { source: null }, '$.shadow.source', /shadow.source is the candidate/],
  ['sampleRate 2', { source: examplePermissions(), sampleRate: 2 }, '$.shadow.sampleRate', /from 0 to 1/],
  ['sampleRate -0.1', { source: examplePermissions(), sampleRate: -0.1 }, '$.shadow.sampleRate', /from 0 to 1/],
  ['sampleRate NaN', { source: examplePermissions(), sampleRate: Number.NaN }, '$.shadow.sampleRate', /number/],
  ['maxPerSecond 0', { source: examplePermissions(), maxPerSecond: 0 }, '$.shadow.maxPerSecond', /positive/],
  ['maxPerSecond 1.5', { source: examplePermissions(), maxPerSecond: 1.5 }, '$.shadow.maxPerSecond', /whole number/],
  ['timeoutMs 0', { source: examplePermissions(), timeoutMs: 0 }, '$.shadow.timeoutMs', /positive/],
  ['an unknown key', { source: examplePermissions(), sampleRatio: 0.5 }, '$.shadow', /sampleRatio/],
  ['a shadow that is not an object', 'candidate.yaml', '$.shadow', /object|expected/],
])('%s', (_name, shadow, path, problem) => {
  const error = configErrorOf(() => create(shadow));
  expect(error.path).toBe(path);
  expect(error.message).toMatch(problem);
  expect(error.fix.length).toBeGreaterThan(0);
});

test('a candidate declaration that does not compile is refused at start-up, named as the shadow source', () => {
  const error = configErrorOf(() => create({ source: { user: { '/nowhere': { 'read:any': ['*'] } } } }));
  expect(error.file).toBe('<bearerJwtAcl options>');
  expect(error.path).toBe('$.shadow.source.user["/nowhere"]');
  expect(error.fix).toMatch(/\/users\/\{userId\}/);
  const keyed = configErrorOf(() => create({ source: { bearerAuth: { user: { '/nowhere': { 'read:any': ['*'] } } } } }));
  expect(keyed.path).toBe('$.shadow.source.bearerAuth.user["/nowhere"]');
});

describe('a candidate keyed by scheme', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-shadow-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('keyed by the guarded scheme: taken', () => {
    expect(create({ source: { bearerAuth: examplePermissions() } }).shadowStatus()).toMatchObject({ compared: 0 });
  });

  test('keyed by another scheme of the document: refused, naming both', () => {
    // The example document with a second scheme, which bearerJwtAcl does not guard.
    const document = load(readFileSync(EXAMPLE_OPENAPI, 'utf8')) as { components: { securitySchemes: Record<string, unknown> } };
    document.components.securitySchemes.apiKey = { type: 'apiKey', in: 'header', name: 'x-api-key' };
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const error = configErrorOf(() => create({ source: { apiKey: examplePermissions() } }, file));
    expect(error.path).toBe('$.shadow.source.apiKey');
    expect(error.message).toMatch(/bearerAuth/);
    expect(error.fix).toMatch(/bearerAuth/);
  });
});

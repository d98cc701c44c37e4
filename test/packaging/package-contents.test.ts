import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

// What `npm pack` puts in the tarball, unpacked as npm would install it: the package.json a user
// gets (Express a peer), the LICENSE and CHANGELOG, source maps whose sources are in the package,
// types that import nothing from 'express', and nothing that is not for users (tests, fixtures,
// compiled files whose source is gone).
const ROOT = join(__dirname, '../..');
let work: string;
let pkg: string;
let packed: { filename: string; size: number; files: { path: string }[] };

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'svcgate-contents-'));
  packed = (JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' })) as (typeof packed)[])[0]!;
  execFileSync('tar', ['-xzf', join(work, packed.filename), '-C', work]);
  pkg = join(work, 'package');
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

const read = (path: string) => readFileSync(join(pkg, path), 'utf8');
const filesUnder = (folder: string): string[] =>
  readdirSync(join(pkg, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(pkg, join(entry.parentPath, entry.name)));

test('express (4 or 5) is a peer dependency, not a dependency; @types/express an optional peer', () => {
  const manifest = JSON.parse(read('package.json')) as Record<string, Record<string, unknown>>;
  expect(manifest.dependencies).not.toHaveProperty('express');
  expect(manifest.peerDependencies).toMatchObject({ express: '^4.17.0 || ^5.0.0', '@types/express': '^4.17.0 || ^5.0.0' });
  expect(manifest.peerDependenciesMeta).toMatchObject({ '@types/express': { optional: true } });
  expect(manifest.peerDependenciesMeta).not.toHaveProperty('express');
});

test('the package says where it lives: repository, homepage, bugs; MIT with its LICENSE file', () => {
  const manifest = JSON.parse(read('package.json')) as Record<string, unknown>;
  expect(manifest).toMatchObject({ license: 'MIT', repository: { type: 'git', url: expect.stringMatching(/^git\+https:\/\//) }, homepage: expect.stringMatching(/^https:\/\//), bugs: { url: expect.stringMatching(/^https:\/\//) } });
  expect(read('LICENSE')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 svcgate/);
  expect(read('LICENSE')).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
});

test('a CHANGELOG in Keep a Changelog form, with the entry of the packed version', () => {
  const { version } = JSON.parse(read('package.json')) as { version: string };
  const changelog = read('CHANGELOG.md');
  expect(changelog).toMatch(/^# Changelog\n/);
  expect(changelog).toContain('[Keep a Changelog]');
  expect(changelog).toMatch(new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
});

test('every compiled module has a source map with its source inline, and a declaration map; the sources both name are in the package', () => {
  const compiled = filesUnder('dist/cjs').filter((path) => path.endsWith('.js'));
  expect(compiled.length).toBeGreaterThan(50);
  for (const js of compiled) {
    expect(read(js)).toMatch(/\n\/\/# sourceMappingURL=[\w.-]+\.js\.map\s*$/);
    const ts = js.replace(/^dist\/cjs\//, 'src/').replace(/\.js$/, '.ts');
    for (const map of [`${js}.map`, js.replace(/\.js$/, '.d.ts.map')]) {
      const { sources } = JSON.parse(read(map)) as { sources: string[] };
      expect([map, sources.map((source) => join(dirname(map), source))]).toEqual([map, [ts]]);
      expect([map, existsSync(join(pkg, ts))]).toEqual([map, true]);
    }
    // Inline too: a debugger shows the source from the map alone.
    const { sourcesContent } = JSON.parse(read(`${js}.map`)) as { sourcesContent?: string[] };
    expect([js, sourcesContent?.[0] === read(ts)]).toEqual([js, true]);
  }
});

test('no published declaration imports express (a project without @types/express type-checks)', () => {
  const declarations = filesUnder('dist/cjs').filter((path) => path.endsWith('.d.ts'));
  const importing = declarations.filter((path) => /from ['"]express['"]|import\(['"]express['"]\)|express-serve-static-core/.test(read(path)));
  expect(importing).toEqual([]);
});

test('only what users need: no tests or fixtures, no compiled file without its source, and a bounded size', () => {
  const paths = packed.files.map((file) => file.path);
  expect(paths.filter((path) => !/^(dist\/|src\/|docs\/[a-z-]+\.md$|policies\/authz\.rego$|README\.md$|CHANGELOG\.md$|LICENSE$|package\.json$)/.test(path))).toEqual([]);
  expect(paths.filter((path) => /(^|\/)(test|tests|__tests__|fixtures)\/|\.test\.[cm]?[jt]s$/.test(path))).toEqual([]);
  const orphans = filesUnder('dist/cjs').filter((path) => !existsSync(join(pkg, path.replace(/^dist\/cjs\//, 'src/').replace(/\.(js|js\.map|d\.ts|d\.ts\.map)$/, '.ts'))));
  expect(orphans).toEqual([]);
  expect(paths).toEqual(expect.arrayContaining(['dist/policy.wasm', 'dist/esm/index.mjs', 'policies/authz.rego']));
  // With maps and sources the package packed to about 0.6 MB at its first release, to 1.21 MB
  // with synchronous verification (src/token/jws) and list filtering, and to 1.36 MB with shadow
  // evaluation, replay and status reports (each file's source is in the package twice: as itself
  // and inline in its map); a jump past this bound means something was added by mistake (a
  // fixture, a build folder), not a feature.
  expect(packed.size).toBeLessThan(1_450_000);
});

test('every guide the README links to, and the errors and --help name, is in the package', () => {
  // A ConfigError's fix ('see bearerJwtAcl in docs/openapi-apis.md'), `svcgate test --help` and
  // the README (read in node_modules or an editor, offline) send users to docs/*.md.
  const named = new Set<string>();
  for (const path of ['README.md', ...filesUnder('dist/cjs').filter((file) => file.endsWith('.js'))]) {
    for (const match of read(path).matchAll(/\bdocs\/([a-z-]+\.md)\b/g)) named.add(`docs/${match[1]}`);
  }
  expect(named.size).toBeGreaterThan(5);
  expect([...named].filter((path) => !existsSync(join(pkg, path)))).toEqual([]);
  // The generated API reference (docs/api/, `make docs`) is not shipped.
  expect(packed.files.filter((file) => file.path.startsWith('docs/api/'))).toEqual([]);
});

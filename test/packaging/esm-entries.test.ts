import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// The ESM entry points (dist/esm, written by scripts/write-esm-entries.cjs after `npm run
// build:ts`) wrap the CommonJS build. Their published types are the CommonJS declarations, so
// TypeScript (module nodenext or node16) reads `import policy from 'svcgate/policy'` as Node
// reads an import of a CommonJS module: the default is module.exports. The wrappers must give the
// same at run time, or code that type-checks fails to load ("does not provide an export named
// 'default'").
const ROOT = join(__dirname, '../..');
const ENTRIES: [string, string][] = [
  ['index', 'index.js'],
  ['policy', 'policy/index.js'],
  ['auth', 'auth/index.js'],
  ['svc', 'svc/index.js'],
  ['fleet', 'fleet/index.js'],
  ['testing', 'testing/index.js'],
  ['list', 'list/index.js'],
];

test.each(ENTRIES)('dist/esm/%s.mjs has a default export, module.exports of the CommonJS entry, and its named exports', (name, target) => {
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(${JSON.stringify(join(ROOT, 'package.json'))});
    const cjs = require(${JSON.stringify(join(ROOT, 'dist/cjs', target))});
    const esm = await import(${JSON.stringify(join(ROOT, 'dist/esm', `${name}.mjs`))});
    const named = Object.keys(esm).filter((key) => key !== 'default');
    console.log(JSON.stringify({
      defaultIsModuleExports: esm.default === cjs,
      namedMatch: named.every((key) => esm[key] === cjs[key]),
      missing: Object.keys(cjs).filter((key) => key !== '__esModule' && !named.includes(key)),
    }));
  `;
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(out.stderr).toBe('');
  expect(JSON.parse(out.stdout)).toEqual({ defaultIsModuleExports: true, namedMatch: true, missing: [] });
});

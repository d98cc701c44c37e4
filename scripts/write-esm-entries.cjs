// Writes the ESM entry points as thin wrappers over the CommonJS build, so that `import` and
// `require` share one copy of every module (one Evaluator class, one ConfigError class for
// instanceof checks) instead of the two a dual build would load.
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const entries = { index: 'index.js', policy: 'policy/index.js', auth: 'auth/index.js', svc: 'svc/index.js', fleet: 'fleet/index.js', testing: 'testing/index.js', list: 'list/index.js' };

mkdirSync(join(root, 'dist/esm'), { recursive: true });
for (const [name, target] of Object.entries(entries)) {
  const names = Object.keys(require(join(root, 'dist/cjs', target))).filter((key) => key !== '__esModule');
  const body = names.length > 0 ? `export const { ${names.join(', ')} } = cjs;\n` : '';
  // The default is module.exports, as Node gives it for an import of a CommonJS module: the
  // published types are the CommonJS declarations, so TypeScript accepts `import policy from
  // 'svcgate/policy'` under nodenext, and it must load.
  writeFileSync(join(root, 'dist/esm', `${name}.mjs`), `import cjs from '../cjs/${target}';\n${body}export default cjs;\n`);
}
console.log(`dist/esm: ${Object.keys(entries).length} entry points`);

// Removes compiled files of dist/cjs whose TypeScript source is gone. tsc writes over what it
// compiles and never deletes, so a module moved or removed in src/ would stay in dist/ and be
// packed into the tarball (loadable under its old path, with its old code).
const { readdirSync, existsSync, rmSync, rmdirSync } = require('node:fs');
const { join, relative } = require('node:path');

const root = join(__dirname, '..');
const out = join(root, 'dist/cjs');
const COMPILED = /\.(?:js|js\.map|d\.ts|d\.ts\.map)$/;

/** Walks `folder`; returns how many files it removed, and removes the folder when it is left empty. */
function prune(folder) {
  let removed = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      removed += prune(path);
      continue;
    }
    const source = join(root, 'src', relative(out, path).replace(COMPILED, '.ts'));
    if (COMPILED.test(entry.name) && !existsSync(source)) {
      rmSync(path);
      removed += 1;
    }
  }
  if (folder !== out && readdirSync(folder).length === 0) rmdirSync(folder);
  return removed;
}

if (existsSync(out)) {
  const removed = prune(out);
  if (removed > 0) console.log(`dist/cjs: removed ${removed} files whose source is gone`);
}

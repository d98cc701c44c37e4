import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Where the compiled policy is: `dist/policy.wasm` under the package root. The root is found by
 * walking up from this file, because this code runs both from `src/` (tests) and `dist/cjs/`.
 */
export function policyWasmPath(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (isSvcgateRoot(dir)) return join(dir, 'dist', 'policy.wasm');
    if (dirname(dir) === dir) throw new Error('svcgate: cannot find the package root that holds dist/policy.wasm');
  }
}

function isSvcgateRoot(dir: string): boolean {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) return false;
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'svcgate';
  } catch {
    return false;
  }
}

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { policyWasmPath } from './policy-wasm-path';

let version: string | undefined;

/** The package's version, for the `version` label of decision logs and the instrumentation scope of spans and metrics; read once. */
export function svcgateVersion(): string {
  version ??= (JSON.parse(readFileSync(join(dirname(policyWasmPath()), '../package.json'), 'utf8')) as { version: string }).version;
  return version;
}

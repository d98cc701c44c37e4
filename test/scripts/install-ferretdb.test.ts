import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bareBin } from '../helpers/bare-path';

const SCRIPT = join(__dirname, '../../scripts/install-ferretdb.sh');
const PINNED = /FERRETDB_VERSION=(v\d+\.\d+\.\d+)/.exec(readFileSync(join(__dirname, '../../scripts/ferretdb-version.sh'), 'utf8'))![1]!;
const GO_BIN = join(execFileSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' }).trim(), '..');

/** A PATH without go whose `ferretdb` is a script that prints `output` for --version and exits with `status`. */
function pathWithFerretDb(output: string, status = 0): string {
  const bin = bareBin();
  writeFileSync(join(bin, 'ferretdb'), `#!/bin/bash\nprintf '%s\\n' '${output}'\nexit ${status}\n`);
  chmodSync(join(bin, 'ferretdb'), 0o755);
  return bin;
}

test('finds the pinned ferretdb and prints its path, whether or not GOPATH/bin is on PATH', () => {
  const path = execFileSync('bash', [SCRIPT, '--find'], { encoding: 'utf8', env: { PATH: `${GO_BIN}:/usr/bin:/bin`, HOME: process.env.HOME! } }).trim();
  expect(path).toMatch(new RegExp(`/ferretdb-${PINNED}$`));
  expect(execFileSync(path, ['--version'], { encoding: 'utf8' })).toContain(`version: ${PINNED}\n`);
  // Already built: the script answers at once, as `make build` calls it on every run.
  expect(execFileSync('bash', [SCRIPT], { encoding: 'utf8' })).toBe(`${path}\n`);
});

test('a ferretdb on PATH is taken only when it reports the pinned version', () => {
  const pinned = pathWithFerretDb(`version: ${PINNED}`);
  expect(execFileSync('bash', [SCRIPT, '--find'], { encoding: 'utf8', env: { PATH: pinned } })).toBe(`${join(pinned, 'ferretdb')}\n`);
  // Another version, and what a plain `go install` builds: a binary that panics, its version.txt empty.
  for (const bin of [pathWithFerretDb('version: v1.23.0'), pathWithFerretDb('panic: Invalid build/version/version.txt file content.', 2)]) {
    const result = spawnSync('bash', [SCRIPT, '--find'], { encoding: 'utf8', env: { PATH: bin } });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
  }
});

test('without Go, says so in one line and fails', () => {
  const result = spawnSync('bash', [SCRIPT], { encoding: 'utf8', env: { PATH: bareBin() } });
  expect(result.status).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^install-ferretdb: Go is not installed; install Go >= 1\.24 .*\n$/);
});

test('--find without ferretdb tells how to install it', () => {
  const result = spawnSync('bash', [SCRIPT, '--find'], { encoding: 'utf8', env: { PATH: bareBin() } });
  expect(result.status).toBe(1);
  expect(result.stderr).toBe(`ferretdb ${PINNED} is not installed; run 'bash scripts/install-ferretdb.sh' (needs Go) or 'make build'\n`);
});

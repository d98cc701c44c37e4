import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bareBin } from '../helpers/bare-path';

const SCRIPT = join(__dirname, '../../scripts/install-opa.sh');
const PINNED = /OPA_VERSION=v(\d+\.\d+\.\d+)/.exec(readFileSync(join(__dirname, '../../scripts/opa-version.sh'), 'utf8'))![1];

test('finds the pinned opa and prints its path, whether or not GOPATH/bin is on PATH', () => {
  const path = execFileSync('bash', [SCRIPT, '--find'], { encoding: 'utf8', env: { PATH: '/usr/local/go/bin:/usr/bin:/bin', HOME: process.env.HOME! } }).trim();
  expect(execFileSync(path, ['version'], { encoding: 'utf8' })).toContain(`Version: ${PINNED}`);
});

test('without Go, says so in one line and fails', () => {
  const result = spawnSync('bash', [SCRIPT], { encoding: 'utf8', env: { PATH: bareBin() } });
  expect(result.status).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^install-opa: Go is not installed; install Go >= 1\.24 .*\n$/);
});

test('--find without opa tells how to install it', () => {
  const result = spawnSync('bash', [SCRIPT, '--find'], { encoding: 'utf8', env: { PATH: bareBin() } });
  expect(result.status).toBe(1);
  expect(result.stderr).toContain("run 'bash scripts/install-opa.sh' (needs Go) or 'make build'");
});

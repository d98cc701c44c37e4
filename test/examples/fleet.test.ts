import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

// `make fleet` as a person runs it: two replicas and an OPA sidecar switch to the rewritten permission.
test('examples/fleet/run.mjs publishes a new revision and every process switches to it', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [join(__dirname, '../../examples/fleet/run.mjs')], { timeout: 60_000 });
  expect(stdout).toMatch(/wrote .*rev-1\.tar\.gz: revision rev-1, 9 operations, \d+ bytes, signed ES256/);
  expect(stdout).toMatch(/every process switched to rev-2 within \d+ ms of the publish: \{"replica 1":"rev-2","replica 2":"rev-2","opa":"rev-2"\}/);
  expect(stdout.match(/-> 403 \(was 200\)/g)).toHaveLength(2);
}, 90_000);

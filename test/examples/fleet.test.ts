import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

// `make fleet` as a person runs it: two replicas shadow the candidate revision (the user role
// without read:own on users) and show its divergences, then every process and the OPA sidecar
// switch to it once it is published.
test('examples/fleet/run.mjs shows the candidate diverging in the shadow, publishes it, and every process switches to it', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [join(__dirname, '../../examples/fleet/run.mjs')], { timeout: 60_000 });
  expect(stdout).toMatch(/wrote .*rev-1\.tar\.gz: revision rev-1, 9 operations, \d+ bytes, signed ES256/);
  // The active revision answered every request; the candidate would have denied the user's own users.
  expect(stdout).toContain('sent to each replica as the user (userId 1, 3, 5): GET /users/1 200, /users/2 403; as admin: GET /users/2 200');
  const divergence = /^replica \d: 4 compared, 2 divergences \(2 narrowed\)\n {2}by operation: GET \/users\/\{userId\} 2 of 4; by role: user 2 of 3, admin 0 of 1\n {2}first: user GET \/users\/\{userId\}: rev-1 allow \[!password, \*\], rev-2 deny$/gm;
  expect(stdout.match(divergence)).toHaveLength(2);
  expect(stdout.indexOf('publishing the candidate')).toBeGreaterThan(stdout.search(divergence));
  expect(stdout).toMatch(/every process switched to rev-2 within \d+ ms of the publish: \{"replica 1":"rev-2","replica 2":"rev-2","opa":"rev-2"\}/);
  expect(stdout.match(/-> 403 \(was 200\)/g)).toHaveLength(2);
}, 90_000);

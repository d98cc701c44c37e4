import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The built bin, as users run it (`make test` builds first). */
export const SVCGATE_BIN = join(__dirname, '../../dist/cjs/cli/main.js');
const run = promisify(execFile);

/** Runs `svcgate ...args` in a child process; its exit code and output, whether it failed or not. */
export async function svcgate(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    // The timeout: execFile leaves the child's standard input open, so a command that waits on it
    // (or hangs) would otherwise keep jest, which CI runs in band, alive for ever.
    const { stdout, stderr } = await run(process.execPath, [SVCGATE_BIN, ...args], { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

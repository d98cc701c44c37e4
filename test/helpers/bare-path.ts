import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A directory for PATH with bash and the basic tools but neither go nor the tools the install scripts build. */
export function bareBin(): string {
  const bin = mkdtempSync(join(tmpdir(), 'svcgate-bin-'));
  for (const tool of ['bash', 'sed', 'cat', 'dirname', 'grep']) symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), join(bin, tool));
  return bin;
}

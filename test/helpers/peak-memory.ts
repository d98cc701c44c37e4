import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes, into `dir`, a script for `node --require` that writes the process's peak resident memory
 * in KiB to the file named by `SVCGATE_PEAK_FILE` when it exits; returns its path. VmHWM is the
 * high-water mark of the process's own memory: getrusage's maxRSS (process.resourceUsage()) on
 * Linux also keeps the peak of the memory forked from the parent before exec, which is jest's,
 * hundreds of MiB.
 */
export function peakMemoryScript(dir: string): string {
  const script = join(dir, 'peak-memory.cjs');
  writeFileSync(
    script,
    `process.on('exit', () => { const fs = require('node:fs'); const hwm = /VmHWM:\\s*(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8')); fs.writeFileSync(process.env.SVCGATE_PEAK_FILE, hwm ? hwm[1] : String(process.resourceUsage().maxRSS)); });\n`,
  );
  return script;
}

import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(__dirname, '../..');

export interface ServedExamples {
  /** Everything examples/serve.mjs printed until `last` (its URLs and curl lines). */
  printed: string;
  stop(): void;
}

/**
 * Starts examples/serve.mjs as `make run` does, on free ports of 127.0.0.1 (PORT=0), and resolves
 * once it has printed `last`; rejects if it exits first. Needs the build (`npm run build:ts`).
 */
export function serveExamples(last: string): Promise<ServedExamples> {
  const server = spawn(process.execPath, [join(ROOT, 'examples/serve.mjs')], { cwd: ROOT, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const served: ServedExamples = { printed: '', stop: () => server.kill() };
  return new Promise((resolve, reject) => {
    server.stdout.on('data', (chunk: Buffer) => {
      served.printed += chunk.toString();
      if (served.printed.includes(last)) resolve(served);
    });
    server.once('exit', (code) => reject(new Error(`the example exited with ${code}`)));
  });
}

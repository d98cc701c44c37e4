import { spawn } from 'node:child_process';
import { join } from 'node:path';

const SERVER = join(__dirname, '../fixtures/echo-oas-server.mjs');
const ROOT = join(__dirname, '../..');

export interface EchoOasSetup {
  /** The OpenAPI document (a file). */
  openapi: string;
  /** The permission declaration of the bearerAuth scheme (a file). */
  acl: string;
  /** bearerJwt's configuration. */
  jwt: Record<string, unknown>;
}

export interface EchoOasHost {
  port: number;
  stop(): void;
}

/**
 * Starts test/fixtures/echo-oas-server.mjs, the real @oas-tools/core host whose controllers echo
 * what they received, in a child process (the host keeps its middleware chain in module state).
 * It loads svcgate through the package's exports, that is from dist/. A host that fails to start
 * rejects with everything it printed.
 */
export function startEchoOasHost(setup: EchoOasSetup): Promise<EchoOasHost> {
  const child = spawn(process.execPath, [SERVER, JSON.stringify({ packageJSON: join(ROOT, 'package.json'), ...setup })], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const port = /PORT (\d+)/.exec(output)?.[1];
      if (port !== undefined) resolve({ port: Number(port), stop: () => child.kill() });
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the @oas-tools/core host exited with ${code}:\n${output}`)));
  });
}

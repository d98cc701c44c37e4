import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
export const OPA = execFileSync('bash', [join(ROOT, 'scripts/install-opa.sh'), '--find'], { encoding: 'utf8' }).trim();

/** A port free on 127.0.0.1 right now (OPA prints the port it was given, not the one it got from 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export interface OpaServer {
  url: string;
  process: ChildProcess;
  /** Everything OPA logged, for assertions on what it refused. */
  log: () => string;
  stop: () => Promise<void>;
}

/**
 * A real `opa run --server` on 127.0.0.1 with `args` (bundles, `--set`, `-c`...). Resolves once
 * `/health` answers (with `ready: '/health?bundles'`, once its bundles are activated).
 */
export async function startOpa(args: string[], options: { ready?: string; timeoutMs?: number } = {}): Promise<OpaServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(OPA, ['run', '--server', '--addr', `127.0.0.1:${port}`, '--log-level', 'debug', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const server: OpaServer = {
    url,
    process: child,
    log: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`opa exited with ${child.exitCode}: ${output.slice(-2000)}`);
    try {
      const answer = await fetch(`${url}${options.ready ?? '/health'}`);
      if (answer.status === 200) return server;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`opa did not become ready at ${options.ready ?? '/health'}: ${output.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** POST /v1/data/svcgate/authz/decision: OPA's answer to the input, as its REST API gives it. */
export async function opaDecision(url: string, input: unknown): Promise<{ result?: unknown }> {
  const answer = await fetch(`${url}/v1/data/svcgate/authz/decision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
  if (answer.status !== 200) throw new Error(`opa answered ${answer.status}: ${await answer.text()}`);
  return (await answer.json()) as { result?: unknown };
}

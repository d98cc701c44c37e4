import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './opa-server';

const ROOT = join(__dirname, '../..');

export interface FerretDbServer {
  /** mongodb://127.0.0.1:<port>/ */
  url: string;
  /** Everything FerretDB logged (warnings and errors), for the message of a failed start. */
  log: () => string;
  /** Ends the server (SIGTERM, SIGKILL after 10 s) and removes its data directory. */
  stop: () => Promise<void>;
}

/** Whether something accepts TCP connections on 127.0.0.1:port now. */
function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A real FerretDB (the pinned version of scripts/install-ferretdb.sh: a MongoDB wire-protocol server) on 127.0.0.1
 * and a free port, storing in SQLite under a temporary directory. Resolves once the port accepts connections, and
 * fails with FerretDB's log when it exits first or has not listened within `timeoutMs`.
 */
export async function startFerretDb(options: { timeoutMs?: number } = {}): Promise<FerretDbServer> {
  const binary = execFileSync('bash', [join(ROOT, 'scripts/install-ferretdb.sh'), '--find'], { encoding: 'utf8' }).trim();
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-ferretdb-'));
  const port = await freePort();
  const child = spawn(
    binary,
    [
      '--handler=sqlite',
      `--sqlite-url=file:${dir}/`,
      `--listen-addr=127.0.0.1:${port}`,
      // Its state file (otherwise in the working directory), and no debug HTTP listener on the fixed port 8088.
      `--state-dir=${dir}`,
      '--debug-addr=-',
      '--telemetry=disable',
      '--log-level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  let exitCode: number | null = null;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exitCode = code ?? (signal === null ? -1 : 128);
      resolve();
    }),
  );
  const stop = async (): Promise<void> => {
    if (exitCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    if (exitCode !== null) {
      await stop();
      throw new Error(`ferretdb exited with ${exitCode}: ${output.slice(-2000)}`);
    }
    if (await accepting(port)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`ferretdb did not listen on 127.0.0.1:${port} within ${options.timeoutMs ?? 15_000} ms: ${output.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `mongodb://127.0.0.1:${port}/`, log: () => output, stop };
}

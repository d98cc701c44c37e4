import { fork } from 'node:child_process';
import { join } from 'node:path';

/** A real PostgreSQL (PGlite, in memory) in a child process, for tests that run SQL on it. */
export interface PgliteProcess {
  /** Runs one statement with `$1..` placeholders; rows as PGlite gives them (cast to text what must stay exact). */
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  /** Runs statements without parameters (DDL); the rows of the last one. */
  exec(text: string): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
}

type Answer = { id: number; rows?: unknown[]; error?: string } | { ready: boolean; error?: string };

/**
 * Starts PGlite in its own node process. PGlite's CommonJS build loads node modules with a
 * dynamic import(), which jest's VM refuses unless node runs with --experimental-vm-modules; the
 * child is plain node. Messages use the advanced serialization, so bigints and dates pass as they are.
 */
export async function startPglite(): Promise<PgliteProcess> {
  const child = fork(join(__dirname, 'pglite-child.cjs'), [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pending = new Map<number, { resolve: (rows: unknown[]) => void; reject: (error: Error) => void }>();
  let next = 0;
  const ready = new Promise<void>((resolve, reject) => {
    child.on('message', (answer: Answer) => {
      if ('ready' in answer) return answer.ready ? resolve() : reject(new Error(`PGlite did not start: ${answer.error}`));
      const waiting = pending.get(answer.id);
      pending.delete(answer.id);
      if (answer.error !== undefined) waiting?.reject(new Error(answer.error));
      else waiting?.resolve(answer.rows ?? []);
    });
    child.once('exit', (code) => {
      reject(new Error(`PGlite exited with ${code}`));
      for (const waiting of pending.values()) waiting.reject(new Error(`PGlite exited with ${code}`));
      pending.clear();
    });
  });
  const send = (text: string, params?: unknown[]): Promise<unknown[]> =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      child.send({ id, text, params });
    });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.disconnect();
      // The child closes the database and exits on disconnect; a kill is the fallback should it hang.
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
  try {
    await ready;
  } catch (error) {
    await stop();
    throw error;
  }
  return { query: (text, params = []) => send(text, params) as Promise<never[]>, exec: (text) => send(text) as Promise<Record<string, unknown>[]>, stop };
}

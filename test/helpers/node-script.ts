import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const DIST = join(__dirname, '../../dist/esm');

/** `import ... from ${entry('fleet')}` in a script: the built package, as an ES module user imports it (build:ts first). */
export function entry(name: 'auth' | 'fleet' | 'policy'): string {
  return JSON.stringify(pathToFileURL(join(DIST, `${name}.mjs`)).href);
}

export interface ScriptRun {
  child: ChildProcess;
  /** Every line printed on stdout so far. */
  lines: string[];
  /** The exit code (null after a signal) and the whole output, once the process has ended. */
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Resolves with the first line (from now or earlier) that `match` accepts. */
  line(match: (line: string) => boolean): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Runs `source` as an ES module (top-level await allowed) in a new node process. `fileSizeKiB`
 * caps the size of any file it writes (`ulimit -f`), so that a write larger than that fails as it
 * does on a full disk (EFBIG; Node ignores SIGXFSZ) while small writes succeed.
 */
export function runScript(source: string, options: { fileSizeKiB?: number } = {}): ScriptRun {
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-script-'));
  const file = join(dir, 'script.mjs');
  writeFileSync(file, source);
  const child =
    options.fileSizeKiB === undefined
      ? spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('/bin/sh', ['-c', `ulimit -f ${options.fileSizeKiB} && exec "$0" "$1"`, process.execPath, file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let partial = '';
  const lines: string[] = [];
  const watchers: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    for (const text of parts) {
      lines.push(text);
      for (const watcher of watchers.filter((candidate) => candidate.match(text))) {
        watchers.splice(watchers.indexOf(watcher), 1);
        watcher.resolve(text);
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => {
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    }),
  );
  return {
    child,
    lines,
    exited,
    line: (match) => {
      const seen = lines.find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        watchers.push({ match, resolve });
        void exited.then(({ code }) => reject(new Error(`the script exited (${code}) before printing the line awaited:\n${stdout}\n${stderr}`)));
      });
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/** The version of a package in this repository's node_modules: the one its tests run with. */
export function versionOf(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * A project outside the repository as a user sets one up: the repository packed by `npm pack`,
 * installed with `packages` (npm specs; from npm's cache when it holds them) in one `npm install`
 * into a new folder under the OS temp dir, with `npmFlags` (e.g. `--omit=peer`). Returns the project's folder.
 */
export function installPackedProject(name: string, packages: string[], npmFlags: readonly string[] = []): string {
  const work = mkdtempSync(join(tmpdir(), `svcgate-${name}-`));
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' })) as { filename: string }[];
  const project = join(work, name);
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name, private: true }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...npmFlags, join(work, packed!.filename), ...packages], { cwd: project, stdio: 'pipe' });
  return project;
}

/** The module settings a user's TypeScript project may have; svcgate's types must resolve under each (node10 through typesVersions). */
export const MODULE_RESOLUTIONS: [string, Record<string, string>][] = [
  ['node10', { module: 'commonjs', moduleResolution: 'node10' }],
  ['node16', { module: 'node16', moduleResolution: 'node16' }],
  ['nodenext', { module: 'nodenext', moduleResolution: 'nodenext' }],
  ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
];

/**
 * Runs the project's tsc on `files` in strict mode with skipLibCheck false (the packed types are
 * checked too) and `settings` on top, through `tsconfig.<name>.json`. Returns what tsc reports:
 * empty when the files type-check.
 */
export function typeCheck(project: string, name: string, files: string[], settings: Record<string, unknown>): string {
  try {
    execFileSync(join(project, 'node_modules/.bin/tsc'), ['-p', writeConfig(project, name, files, settings)], { cwd: project, encoding: 'utf8' });
    return '';
  } catch (error) {
    return (error as { stdout: string }).stdout;
  }
}

/** One tsc run of `typeCheckAll`: its name (the tsconfig's, so unique per project), files and settings. */
export interface TypeCheckRun {
  name: string;
  files: string[];
  settings: Record<string, unknown>;
}

/**
 * `typeCheck` for several runs, as many at a time as there are cores: each run checks all of
 * @types/node and svcgate's types (20 to 30 s here), and jest runs test files one by one in CI,
 * so one run at a time would leave the other cores idle. Resolves to each run's report by name.
 */
export async function typeCheckAll(project: string, runs: readonly TypeCheckRun[]): Promise<Map<string, string>> {
  const reports = new Map<string, string>();
  const queue = [...runs];
  const worker = async () => {
    for (let run = queue.shift(); run !== undefined; run = queue.shift()) {
      const config = writeConfig(project, run.name, run.files, run.settings);
      const report = await new Promise<string>((resolve) => {
        execFile(join(project, 'node_modules/.bin/tsc'), ['-p', config], { cwd: project, encoding: 'utf8' }, (error, stdout) => resolve(error === null ? '' : stdout));
      });
      reports.set(run.name, report);
    }
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), runs.length) }, worker));
  return reports;
}

function writeConfig(project: string, name: string, files: string[], settings: Record<string, unknown>): string {
  const config = join(project, `tsconfig.${name}.json`);
  writeFileSync(config, JSON.stringify({ compilerOptions: { target: 'es2022', strict: true, esModuleInterop: true, skipLibCheck: false, noEmit: true, types: ['node'], ...settings }, files }));
  return config;
}

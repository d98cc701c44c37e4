import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installPackedProject, versionOf } from '../helpers/packed-project';

// Issue 29, section 3, checked as a user meets it: strict TypeScript files (test/fixtures/typed-consumer)
// in a project installed from the packed tarball, type-checked by the real tsc under each module
// resolution. The seed's class form (classes that declare nothing for svcgate), the form with a
// declared instance name, and authOf compile; a misspelt service name, a dependency the container
// lacks or holds with another type, and req.auth read without authOf fail with the code written
// beside each line. Needs dist/: run `npm run build:ts` first.
const ROOT = join(__dirname, '../..');
const FIXTURES = join(ROOT, 'test/fixtures/typed-consumer');
let project: string;

beforeAll(() => {
  project = installPackedProject('typed-consumer', [
    `express@${versionOf('express')}`,
    `typescript@${versionOf('typescript')}`,
    `@types/express@${versionOf('@types/express')}`,
    `@types/node@${versionOf('@types/node')}`,
  ]);
  cpSync(FIXTURES, project, { recursive: true });
}, 300_000);

const SETTINGS: [string, Record<string, string>][] = [
  ['node10', { module: 'commonjs', moduleResolution: 'node10' }],
  ['node16', { module: 'node16', moduleResolution: 'node16' }],
  ['nodenext', { module: 'nodenext', moduleResolution: 'nodenext' }],
  ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
];

/** Runs tsc on `files` in strict mode under `settings`; what it reports, empty when they type-check. */
function tsc(name: string, files: string[], settings: Record<string, string>): string {
  const config = join(project, `tsconfig.${name}.json`);
  writeFileSync(config, JSON.stringify({ compilerOptions: { target: 'es2022', strict: true, esModuleInterop: true, skipLibCheck: false, noEmit: true, types: ['node'], ...settings }, files }));
  try {
    execFileSync(join(project, 'node_modules/.bin/tsc'), ['-p', config], { cwd: project, encoding: 'utf8' });
    return '';
  } catch (error) {
    return (error as { stdout: string }).stdout;
  }
}

/** `<line> TS<code>` of each error tsc reported in `file`. */
function reported(output: string, file: string): string[] {
  return [...output.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+):/gm)].filter((match) => match[1] === file).map((match) => `${match[2]} ${match[3]}`);
}

/** `<line> TS<code>` of each line of `file` marked `// expect TS<code>`. */
function expected(file: string): string[] {
  return readFileSync(join(FIXTURES, file), 'utf8')
    .split('\n')
    .flatMap((line, index) => [...line.matchAll(/\/\/ expect (TS\d+)/g)].map((match) => `${index + 1} ${match[1]}`));
}

// One tsc run for each setting (it takes seconds on a busy machine): the files that must compile and the one that must not.
test.each(SETTINGS)('moduleResolution %s: the seed\'s class form, the declared-name form and authOf type-check in strict mode; a misspelt service, an unmet dependency and req.auth without authOf fail with their codes', (name, settings) => {
  const output = tsc(name, ['seed-form.ts', 'named-form.ts', 'auth-of.ts', 'must-not-compile.ts'], settings);
  for (const file of ['seed-form.ts', 'named-form.ts', 'auth-of.ts']) expect(reported(output, file)).toEqual([]);
  expect(expected('must-not-compile.ts')).toHaveLength(8);
  expect(reported(output, 'must-not-compile.ts')).toEqual(expected('must-not-compile.ts'));
  expect(output.split('\n').filter((line) => /error TS/.test(line) && !line.startsWith('must-not-compile.ts('))).toEqual([]);
  // The message names what is unmet, so the user knows which key to fix.
  expect(output).toContain(`required in type '{ readonly 'services a constructor needs that the container lacks or holds with another type': "userServce"; }'`);
  expect(output).toContain(`"ledger"; }'`);
}, 180_000);

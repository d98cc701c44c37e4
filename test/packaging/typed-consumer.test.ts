import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { installPackedProject, MODULE_RESOLUTIONS, typeCheckAll, versionOf } from '../helpers/packed-project';

// Issue 29, section 3, checked as a user meets it: strict TypeScript files (test/fixtures/typed-consumer)
// in a project installed from the packed tarball, type-checked by the real tsc under each module
// resolution. The seed's class form (classes that declare nothing for svcgate), the form with a
// declared instance name, and authOf compile; a misspelt service name, a dependency the container
// lacks or holds with another type, and req.auth read without authOf fail with the code written
// beside each line. Needs dist/: run `npm run build:ts` first.
const ROOT = join(__dirname, '../..');
const FIXTURES = join(ROOT, 'test/fixtures/typed-consumer');
let reports: Promise<Map<string, string>>;

const FILES = ['seed-form.ts', 'named-form.ts', 'auth-of.ts', 'list-filter.ts', 'must-not-compile.ts'];

beforeAll(() => {
  const project = installPackedProject('typed-consumer', [
    `express@${versionOf('express')}`,
    `typescript@${versionOf('typescript')}`,
    `@types/express@${versionOf('@types/express')}`,
    `@types/node@${versionOf('@types/node')}`,
  ]);
  cpSync(FIXTURES, project, { recursive: true });
  // One tsc run for each setting (the files that must compile and the one that must not), all started here.
  reports = typeCheckAll(project, MODULE_RESOLUTIONS.map(([name, settings]) => ({ name, files: FILES, settings })));
}, 300_000);

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

test.each(MODULE_RESOLUTIONS)('moduleResolution %s: the seed\'s class form, the declared-name form, authOf and svcgate/list type-check in strict mode; a misspelt service, an unmet dependency and req.auth without authOf fail with their codes', async (name) => {
  const output = (await reports).get(name)!;
  for (const file of ['seed-form.ts', 'named-form.ts', 'auth-of.ts', 'list-filter.ts']) expect(reported(output, file)).toEqual([]);
  expect(expected('must-not-compile.ts')).toHaveLength(8);
  expect(reported(output, 'must-not-compile.ts')).toEqual(expected('must-not-compile.ts'));
  expect(output.split('\n').filter((line) => /error TS/.test(line) && !line.startsWith('must-not-compile.ts('))).toEqual([]);
  // The message names what is unmet, so the user knows which key to fix.
  expect(output).toContain(`required in type '{ readonly 'services a constructor needs that the container lacks or holds with another type': "userServce"; }'`);
  expect(output).toContain(`"ledger"; }'`);
}, 300_000);

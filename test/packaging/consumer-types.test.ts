import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A consumer project outside the repository, from the packed tarball: one strict TypeScript file
// that uses every subpath (test/fixtures/consumer/app.ts) type-checks under each module
// resolution a user may have (node10 through typesVersions, node16, nodenext, bundler).
const ROOT = join(__dirname, '../..');
const versionOf = (name: string) => (require(join(ROOT, 'node_modules', name, 'package.json')) as { version: string }).version;
let project: string;

beforeAll(() => {
  const work = mkdtempSync(join(tmpdir(), 'svcgate-consumer-'));
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' })) as { filename: string }[];
  project = join(work, 'consumer');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), '{"name":"consumer","private":true}');
  // The same TypeScript and type packages as this repository, from npm's cache when it holds them.
  const packages = [join(work, packed!.filename), `typescript@${versionOf('typescript')}`, `@types/express@${versionOf('@types/express')}`, `@types/node@${versionOf('@types/node')}`];
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...packages], { cwd: project, stdio: 'pipe' });
  copyFileSync(join(ROOT, 'test/fixtures/consumer/app.ts'), join(project, 'app.ts'));
}, 240_000);

const SETTINGS: [string, Record<string, string>][] = [
  ['node10', { module: 'commonjs', moduleResolution: 'node10' }],
  ['node16', { module: 'node16', moduleResolution: 'node16' }],
  ['nodenext', { module: 'nodenext', moduleResolution: 'nodenext' }],
  ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
];

/** What tsc reports for `file` under `settings`; empty when it type-checks. */
function typeCheck(name: string, file: string, settings: Record<string, string>): string {
  const config = join(project, `tsconfig.${name}.json`);
  writeFileSync(config, JSON.stringify({ compilerOptions: { ...settings, target: 'es2022', strict: true, esModuleInterop: true, skipLibCheck: false, noEmit: true, types: ['node'] }, files: [file] }));
  try {
    execFileSync(join(project, 'node_modules/.bin/tsc'), ['-p', config], { cwd: project, encoding: 'utf8' });
    return '';
  } catch (error) {
    return (error as { stdout: string }).stdout;
  }
}

test.each(SETTINGS)('moduleResolution %s: the project type-checks in strict mode', (name, settings) => {
  expect(typeCheck(name, 'app.ts', settings)).toBe('');
});

test('a type error in the consumer is reported (the check reads the package types, not any)', () => {
  writeFileSync(join(project, 'wrong.ts'), "import { SvcContainer } from 'svcgate/svc';\nclass A { a() { return 1; } }\nconst s: string = new SvcContainer().ofLocal({ a: A }).services().a.a();\nexport { s };\n");
  expect(typeCheck('wrong', 'wrong.ts', SETTINGS[1]![1])).toMatch(/wrong\.ts\(3,7\): error TS2322: Type 'number' is not assignable to type 'string'/);
});

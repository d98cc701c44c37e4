import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';

// Every js and ts block of the README and of the guides in docs/ is type-checked against the
// package's sources: an option renamed, an export removed or a block that no longer parses fails
// here. A block that uses names it does not define says so on its first line, `// given: app,
// checkOwnership`, and those are declared for it (as `any`). The README's blocks are also files
// of examples/quickstart that a test runs (readme-snippets, consumer-project).
const ROOT = join(__dirname, '../..');
const OUT = join(ROOT, 'build/doc-blocks');
const DOCUMENTS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

interface Block {
  name: string;
  code: string;
}

function blocksOf(document: string): Block[] {
  const text = readFileSync(join(ROOT, document), 'utf8');
  return [...text.matchAll(/^```(js|ts)\n([\s\S]*?)^```$/gm)].map((match) => {
    const line = text.slice(0, match.index).split('\n').length;
    const slug = document.replace(/[/.]/g, '-');
    return { name: `${slug}-line-${line}.${match[1] === 'ts' ? 'mts' : 'mjs'}`, code: match[2]! };
  });
}

/** tsc over `blocks`, written as files; what it reports, empty when everything type-checks. */
function typeCheck(blocks: Block[], directory: string): string {
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  const given = new Set<string>();
  for (const { name, code } of blocks) {
    for (const item of /^\/\/ given: (.*)$/.exec(code.split('\n')[0] ?? '')?.[1]?.split(',') ?? []) given.add(item.trim());
    // A module each, so that one block's names are not another's.
    writeFileSync(join(directory, name), `${code}export {};\n`);
  }
  writeFileSync(join(directory, 'given.d.ts'), [...given].map((item) => `declare const ${item}: any;\n`).join(''));
  const paths = Object.fromEntries(['policy', 'auth', 'svc', 'fleet', 'testing', 'list'].map((part) => [`svcgate/${part}`, [`src/${part}/index.ts`]]));
  const compilerOptions = { target: 'es2022', module: 'esnext', moduleResolution: 'bundler', allowJs: true, checkJs: true, noEmit: true, strict: false, esModuleInterop: true, skipLibCheck: true, types: ['node'], baseUrl: ROOT, paths };
  writeFileSync(join(directory, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.mjs', '*.mts', 'given.d.ts'] }));
  try {
    execFileSync(join(ROOT, 'node_modules/.bin/tsc'), ['-p', directory], { cwd: ROOT, encoding: 'utf8' });
    return '';
  } catch (error) {
    // The blocks' errors only: the sources are type-checked, strictly, by their own tsconfig.
    return (error as { stdout: string }).stdout
      .split('\n')
      .filter((line) => line.startsWith('build/doc-blocks/'))
      .join('\n');
  }
}

test('every js and ts block of the README and the guides type-checks against the package', () => {
  const blocks = DOCUMENTS.flatMap(blocksOf);
  expect(blocks.length).toBeGreaterThanOrEqual(10);
  expect(typeCheck(blocks, join(OUT, 'all'))).toBe('');
}, 60_000);

test('the check reads the package: a misspelled option and an undeclared name are reported', () => {
  const wrong = "// given: app\nimport { bearerJwt, bearerJwtAcl } from 'svcgate/auth';\napp.use(bearerJwtAcl({ opnapi: './openapi.yaml', handler: bearerJwt({ issuer: 'i', secret: 's' }), acl: {} }));\nconsole.log(loadUser);\n";
  const output = typeCheck([{ name: 'wrong.mjs', code: wrong }], join(OUT, 'wrong'));
  expect(output).toMatch(/wrong\.mjs\(3,\d+\): error TS2561: Object literal may only specify known properties, but 'opnapi' does not exist in type 'BearerJwtAclOptions'/);
  expect(output).toMatch(/wrong\.mjs\(4,13\): error TS2304: Cannot find name 'loadUser'/);
}, 60_000);

// A YAML block is copied into openapi.yaml or permissions.yaml: it must load as svcgate loads it (js-yaml). The list
// guide's permissions once wrote { /orders/{orderId}: ... }, which YAML's flow style cannot read.
test('every yaml block of the README and the guides loads', () => {
  const failures = DOCUMENTS.flatMap((document) => {
    const text = readFileSync(join(ROOT, document), 'utf8');
    return [...text.matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)].flatMap((match) => {
      try {
        load(match[1]!);
        return [];
      } catch (error) {
        return [`${document} line ${text.slice(0, match.index).split('\n').length}: ${(error as { reason?: string }).reason}`];
      }
    });
  });
  expect(failures).toEqual([]);
});

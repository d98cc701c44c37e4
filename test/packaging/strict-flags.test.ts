import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Users who turn on TypeScript's stricter checks beyond `strict` (exactOptionalPropertyTypes,
// noUncheckedIndexedAccess, ...) with skipLibCheck: false type-check svcgate's published
// declarations under them too: an error there is theirs to see and no code of theirs to fix.
// Needs `npm run build:ts` (it reads dist/cjs, as the tarball has it).
const ROOT = join(__dirname, '../..');
const OUT = join(ROOT, 'build/strict-flags');
const ENTRIES = ['index', 'policy/index', 'auth/index', 'svc/index', 'fleet/index', 'testing/index'];

afterAll(() => rmSync(OUT, { recursive: true, force: true }));

test('every entry point type-checks with exactOptionalPropertyTypes, noUncheckedIndexedAccess, noPropertyAccessFromIndexSignature and noImplicitOverride', () => {
  mkdirSync(OUT, { recursive: true });
  const imports = ENTRIES.map((entry, index) => `import * as entry${index} from '../../dist/cjs/${entry}';`).join('\n');
  writeFileSync(join(OUT, 'consumer.ts'), `${imports}\nexport const entries = [${ENTRIES.map((_, index) => `entry${index}`).join(', ')}];\n`);
  const compilerOptions = {
    target: 'es2022',
    module: 'commonjs',
    moduleResolution: 'node10',
    // zod's own declarations need it under node10 (TS1259 in zod/v4/locales without it).
    esModuleInterop: true,
    strict: true,
    skipLibCheck: false,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noPropertyAccessFromIndexSignature: true,
    noImplicitOverride: true,
    noEmit: true,
    types: ['node'],
  };
  writeFileSync(join(OUT, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
  let reported = '';
  try {
    execFileSync(join(ROOT, 'node_modules/.bin/tsc'), ['-p', join(OUT, 'tsconfig.json')], { cwd: OUT, encoding: 'utf8' });
  } catch (error) {
    reported = (error as { stdout: string }).stdout;
  }
  expect(reported).toBe('');
});

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Users who turn on TypeScript's stricter checks beyond `strict` (exactOptionalPropertyTypes,
// noUncheckedIndexedAccess, ...) with skipLibCheck: false type-check svcgate's published
// declarations under them too: an error there is theirs to see and no code of theirs to fix.
// Needs `npm run build:ts` (it reads dist/cjs, as the tarball has it).
const ROOT = join(__dirname, '../..');
const OUT = join(ROOT, 'build/strict-flags');
const TSC = join(ROOT, 'node_modules/.bin/tsc');
const ENTRIES = ['index', 'policy/index', 'auth/index', 'svc/index', 'fleet/index', 'testing/index', 'list/index'];
const IMPORTS = ENTRIES.map((entry, index) => `import * as entry${index} from '../../dist/cjs/${entry}';`).join('\n');
const USES = `export const entries = [${ENTRIES.map((_, index) => `entry${index}`).join(', ')}];\n`;

afterAll(() => rmSync(OUT, { recursive: true, force: true }));

/** Writes `source` as `<name>.ts` and its tsconfig; runs `tsc` with `flags`; what it prints (empty: it type-checks). */
function typeCheck(name: string, source: string, compilerOptions: Record<string, unknown>, flags: string[] = []): string {
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, `${name}.ts`), source);
  writeFileSync(join(OUT, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions: { target: 'es2022', strict: true, skipLibCheck: false, noEmit: true, types: ['node'], ...compilerOptions }, files: [`${name}.ts`] }));
  try {
    return execFileSync(TSC, ['-p', join(OUT, `tsconfig.${name}.json`), ...flags], { cwd: OUT, encoding: 'utf8' });
  } catch (error) {
    return (error as { stdout: string }).stdout;
  }
}

test('every entry point type-checks with exactOptionalPropertyTypes, noUncheckedIndexedAccess, noPropertyAccessFromIndexSignature and noImplicitOverride', () => {
  const compilerOptions = {
    module: 'commonjs',
    moduleResolution: 'node10',
    // The consumer imports zod itself, whose declarations need it under node10 (TS1259 in zod/v4/locales without it).
    esModuleInterop: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noPropertyAccessFromIndexSignature: true,
    noImplicitOverride: true,
  };
  // A real zod schema in `static schemas` meets svcgate's ArgumentSchema, and an ArgumentError's issues read as zod's do.
  const zodConsumer = `
import { z } from 'zod';
class UserService {
  static schemas = { createUser: z.object({ name: z.string().min(1), age: z.number().int().optional() }) };
  createUser(user: { name: string; age?: number }): { id: string; name: string } { return { id: '1', name: user.name }; }
}
const container = new entry3.SvcContainer().ofLocal(UserService);
export const api = new entry3.SvcApi().from(container);
const schema: entry3.ArgumentSchema = UserService.schemas.createUser;
export const parsed = schema.safeParse({ name: '' });
export function explain(error: unknown): string[] {
  return error instanceof entry3.ArgumentError ? error.issues.map((issue: entry3.ValidationIssue) => \`\${issue.code} at \${issue.path.join('.')}: \${issue.message}\`) : [];
}
`;
  expect(typeCheck('strict', `${IMPORTS}\n${USES}${zodConsumer}`, compilerOptions)).toBe('');
});

test('every entry point type-checks under node10/commonjs without esModuleInterop, skipLibCheck false', () => {
  // zod's own declarations fail there (TS1259 in zod/v4/locales): svcgate's must not bring them in.
  expect(typeCheck('no-interop', `${IMPORTS}\n${USES}`, { module: 'commonjs', moduleResolution: 'node10' })).toBe('');
});

test('no declaration a consumer of the entry points reads imports zod', () => {
  const listed = typeCheck('listed', `${IMPORTS}\n${USES}`, { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true }, ['--listFilesOnly']);
  const declarations = listed.split('\n').filter((file) => file.includes('/dist/cjs/') && file.endsWith('.d.ts'));
  expect(declarations.length).toBeGreaterThan(50);
  const importingZod = declarations.filter((file) => /(from|import\()\s*['"]zod(\/[^'"]*)?['"]/.test(readFileSync(file, 'utf8')));
  expect(importingZod).toEqual([]);
});

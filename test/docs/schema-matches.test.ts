import { join } from 'node:path';
import ts from 'typescript';

// The compile-time tie between an option interface and its zod schema (schema-matches.ts): each
// kind of drift must fail `tsc`, naming the field, and a matching pair must compile.
const ROOT = join(__dirname, '../..');
const MATCHES = JSON.stringify(join(ROOT, 'src/policy/compile/schema-matches'));

const SCHEMA = `
import { z } from 'zod';
import type { SchemaMatches } from ${MATCHES};
const schema = z.object({ size: z.number().int().default(10), name: z.string().optional(), onUpdate: z.custom<(n: number) => void>().optional() }).strict();
`;

/** The last program: the next one reuses its unchanged files (zod's declarations). */
let previous: ts.Program | undefined;

/** The messages of `tsc` for an interface checked against the schema above (a file given to the compiler, not written). */
function compile(fields: string): string[] {
  const file = join(ROOT, 'test/docs/__schema-matches-check__.ts');
  const text = `${SCHEMA}\ninterface Options {\n${fields}\n}\ntrue satisfies SchemaMatches<typeof schema, Options>;\n`;
  const options: ts.CompilerOptions = { strict: true, noEmit: true, skipLibCheck: true, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10, target: ts.ScriptTarget.ES2022, types: [] };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, version, ...rest) => (name === file ? ts.createSourceFile(name, text, version) : getSourceFile.call(host, name, version, ...rest));
  host.fileExists = (name) => name === file || fileExists.call(host, name);
  host.readFile = (name) => (name === file ? text : readFile.call(host, name));
  const program = ts.createProgram([file], options, host, previous);
  previous = program;
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '));
}

const SAME = ['size?: number;', 'name?: string;', 'onUpdate?: (n: number) => void;'];

test('an interface with the same fields, types and optionality compiles', () => {
  expect(compile(SAME.join('\n'))).toEqual([]);
});

test.each([
  ['an optional field only in the interface', [...SAME, 'extra?: string;'], 'onlyInInterface: "extra"'],
  ['a field only in the schema', SAME.slice(1), 'onlyInSchema: "size"'],
  ['a field typed differently', ['size?: string;', ...SAME.slice(1)], 'typedDifferently: "size"'],
  ['a field required in the interface but optional in the schema', ['size: number;', ...SAME.slice(1)], 'typedDifferently: "size"'],
  ['a function field with another signature', [...SAME.slice(0, 2), 'onUpdate?: (n: string) => void;'], 'typedDifferently: "onUpdate"'],
])('%s fails tsc and names the field', (_, fields, named) => {
  const messages = compile(fields.join('\n'));
  expect(messages).toHaveLength(1);
  expect(messages[0]).toContain('does not satisfy the expected type');
  expect(messages[0]).toContain(named);
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

// What an editor shows on an option, asked of TypeScript's language service (the one VS Code
// runs): the field's TSDoc on hover, and the deprecated spelling struck out in the completion list
// and tagged @deprecated on hover.
const ROOT = join(__dirname, '../..');
const FILE = join(ROOT, 'test/docs/__hover__.ts');
const SOURCE = `import { bearerJwt } from '../../src/auth';
bearerJwt({ secret: 'x'.repeat(32), audience: 'api', maxHeaderBytes: 4096, algoritms: ['HS256'] });
bearerJwt({ secret: 'x'.repeat(32), audience: 'api',  });
`;
/** Inside the second call's object, where an editor offers the fields not given yet. */
const COMPLETING_AT = SOURCE.lastIndexOf(',  ') + 2;

function languageService(): ts.LanguageService {
  const config = ts.parseJsonConfigFileContent(JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')), ts.sys, ROOT);
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => config.options,
    getScriptFileNames: () => [FILE],
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) => {
      const text = name === FILE ? SOURCE : ts.sys.readFile(name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => ROOT,
    getDefaultLibFileName: ts.getDefaultLibFilePath,
    fileExists: (name) => name === FILE || ts.sys.fileExists(name),
    readFile: (name) => (name === FILE ? SOURCE : ts.sys.readFile(name)),
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  return ts.createLanguageService(host);
}

const service = languageService();

test('hovering an option shows its meaning, default and unit', () => {
  const info = service.getQuickInfoAtPosition(FILE, SOURCE.indexOf('maxHeaderBytes') + 3);
  const text = ts.displayPartsToString(info?.documentation);
  expect(text).toContain('refused before any parsing');
  expect(text).toContain('Default `8192` (bytes)');
});

test('the misspelled algoritms is offered struck out, and its hover says to use algorithms', () => {
  const entries = service.getCompletionsAtPosition(FILE, COMPLETING_AT, {})?.entries ?? [];
  const modifiers = (name: string) => entries.find((entry) => entry.name === name)?.kindModifiers?.split(',');
  expect(modifiers('algoritms')).toContain('deprecated');
  expect(modifiers('algorithms')).not.toContain('deprecated');
  const info = service.getQuickInfoAtPosition(FILE, SOURCE.indexOf('algoritms') + 3);
  expect(info?.tags?.map((tag) => [tag.name, ts.displayPartsToString(tag.text)])).toEqual([['deprecated', 'Use `algorithms`.']]);
  // The snippet itself type-checks: the deprecated spelling is still accepted.
  expect(service.getSemanticDiagnostics(FILE).map((diagnostic) => diagnostic.messageText)).toEqual([]);
});

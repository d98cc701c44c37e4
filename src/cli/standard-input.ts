import { MAX_DOCUMENT_BYTES } from '../policy/compile/documents/document-limits';
import { ConfigError } from '../policy/compile/config-error';
import { parseDocumentText } from '../policy/compile/documents/load-document';
import { UsageError } from './usage-error';

/** The file name `-` stands for standard input, as in most command-line tools. */
export const STANDARD_INPUT = '-';
/** How a document read from standard input is named in errors. */
export const STANDARD_INPUT_NAME = '<stdin>';

/** The options whose document may come from standard input, and what each holds. */
const DOCUMENT_OPTIONS = { openapi: 'OpenAPI document', acl: 'ACL', 'acl-new': 'ACL' } as const;
type DocumentOption = keyof typeof DOCUMENT_OPTIONS;

/**
 * The documents of a command line, by path, or read from standard input for the one option given
 * `-`: `svcgate openapi --svc ./api.js | svcgate bundle --openapi - --acl ...` needs no file
 * between the two commands. Standard input is read once, so only one option may be `-`. A URL is
 * refused here: no document is fetched.
 */
export class CommandDocuments {
  private constructor(private readonly piped: { option: DocumentOption; value: Record<string, unknown> } | undefined) {}

  static async read(values: Partial<Record<DocumentOption, string>>): Promise<CommandDocuments> {
    for (const option of Object.keys(DOCUMENT_OPTIONS) as DocumentOption[]) {
      // Read as a path, a URL was `<cwd>/https:/host/api.yaml ... (ENOENT)`: say that none is fetched.
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(values[option] ?? '')) throw new UsageError(`--${option} takes a file, not a URL: svcgate fetches no document (download it first, e.g. curl -fo api.yaml <url>, or pipe it: curl -f <url> | svcgate ... --${option} -)`);
    }
    const piped = (Object.keys(DOCUMENT_OPTIONS) as DocumentOption[]).filter((option) => values[option] === STANDARD_INPUT);
    if (piped.length > 1) throw new UsageError(`${piped.map((option) => `--${option}`).join(' and ')} are both -: standard input holds one document; give the others as files`);
    const [option] = piped;
    if (option === undefined) return new CommandDocuments(undefined);
    const what = DOCUMENT_OPTIONS[option];
    const text = await readStandardInput(what);
    // Without an extension, the text says: JSON starts with an object (a BOM allowed), anything else is read as YAML.
    const format = /^\uFEFF?\s*\{/.test(text) ? 'json' : 'yaml';
    return new CommandDocuments({ option, value: parseDocumentText(text, format, STANDARD_INPUT_NAME, what) });
  }

  /** What compileApi and loadDocument take for the option: the path given, or the document read from standard input. */
  source(path: string, option: DocumentOption): string | Record<string, unknown> {
    return path === STANDARD_INPUT && this.piped?.option === option ? this.piped.value : path;
  }
}

/** All of standard input as UTF-8, refused past the document limit rather than held in memory. */
async function readStandardInput(what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > MAX_DOCUMENT_BYTES) {
      process.stdin.destroy();
      throw new ConfigError(STANDARD_INPUT_NAME, '$', `the ${what} on standard input is over the limit of ${MAX_DOCUMENT_BYTES} bytes`, 'split it into smaller files, or remove what svcgate does not need from it');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

import { statSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { load } from 'js-yaml';
import { ConfigError } from '../config-error';
import { MAX_DOCUMENT_BYTES } from './document-limits';
import { checkDocumentSize } from './document-size';
import { isPlainObject } from './plain-object';
import { readDocumentText } from './read-document-text';

export { isPlainObject };

export interface LoadedDocument {
  value: unknown;
  /** The absolute file path, or `<inline what>` for an object passed in. */
  file: string;
  /** The folder relative `$ref`s resolve against; null for objects (then the working directory). */
  dir: string | null;
  /** The size of the file; 0 for an object passed in. */
  bytes: number;
}

/**
 * Reads a configuration value given as an object, or as a path to a .json, .yaml or .yml file.
 * `what` names it in errors (e.g. 'OpenAPI document', 'ACL').
 */
export function loadDocument(source: unknown, what: string): LoadedDocument {
  if (typeof source === 'string') return readDocumentFile(resolve(source), what);
  if (isPlainObject(source)) return { value: source, file: `<inline ${what}>`, dir: null, bytes: 0 };
  throw new ConfigError(`<inline ${what}>`, '$', `the ${what} is ${describe(source)}`, 'pass an object or the path of a .json, .yaml or .yml file');
}

/**
 * Reads one file, given as an absolute path, within the limits of document-limits.ts: its size
 * before it is parsed, its nesting and its values (YAML aliases counted at each use) right after,
 * so that nothing that reads the value later can take longer than those allow.
 */
export function readDocumentFile(file: string, what: string): LoadedDocument {
  const extension = extname(file).toLowerCase();
  if (!['.json', '.yaml', '.yml'].includes(extension)) {
    // Only here, where it is refused: a folder (`--openapi .`) is named as one, not as a file without an extension.
    if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw new ConfigError(file, '$', `the ${what} is a folder`, 'name a .json, .yaml or .yml file');
    throw new ConfigError(file, '$', `cannot tell the format of the ${what} from the extension "${extension}"`, 'use a .json, .yaml or .yml file');
  }
  const { text, bytes } = readDocumentText(file, what, MAX_DOCUMENT_BYTES);
  return { value: parseDocumentText(text, extension === '.json' ? 'json' : 'yaml', file, what), file, dir: dirname(file), bytes };
}

/**
 * A document's text parsed as a file's is, within the same limits (the caller bounds the text's
 * size): the CLI's `--openapi -` reads it from standard input, where no extension tells the format.
 * `file` names it in errors.
 */
export function parseDocumentText(text: string, format: 'json' | 'yaml', file: string, what: string): Record<string, unknown> {
  const value = format === 'json' ? parseJson(text, file) : parseYaml(text, file);
  if (!isPlainObject(value)) throw new ConfigError(file, '$', `the ${what} is ${describe(value)}`, 'the top level must be an object');
  checkDocumentSize(value, file, what);
  return value;
}

function parseJson(text: string, file: string): unknown {
  // Editors on Windows may save a byte-order mark, which JSON.parse rejects and js-yaml skips.
  const json = text.startsWith('\uFEFF') ? text.slice(1) : text;
  try {
    return JSON.parse(json);
  } catch (error) {
    const message = (error as Error).message;
    throw new ConfigError(file, '$', `invalid JSON${lineAndColumn(json, errorOffset(message, json))}: ${message}`, 'correct the JSON syntax there');
  }
}

/** V8 gives an offset for most syntax errors, none for a truncated file or some unexpected tokens. */
function errorOffset(message: string, json: string): number | undefined {
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position !== undefined) return Number(position);
  return /unexpected end/i.test(message) ? json.length : undefined;
}

function lineAndColumn(text: string, offset: number | undefined): string {
  if (offset === undefined) return '';
  const lines = text.slice(0, offset).split('\n');
  return ` at line ${lines.length}, column ${lines.at(-1)!.length + 1}`;
}

/**
 * The default js-yaml schema builds no functions or classes, and duplicate keys are errors.
 * js-yaml (4.3.2 and later) refuses nesting past 100 levels and more than 10,000 keys copied by
 * merge keys (`<<`); an alias is the anchored object itself, not a copy (checkDocumentSize counts it).
 */
function parseYaml(text: string, file: string): unknown {
  try {
    return load(text, { filename: file });
  } catch (error) {
    const reason = (error as { reason?: string }).reason ?? (error as Error).message;
    throw new ConfigError(file, '$', `invalid YAML${markOf(error)}: ${reason}`, yamlFix(text, error, reason));
  }
}

/**
 * The commonest YAML error in these files: a templated path unquoted inside `{ }` or `[ ]`
 * (`{ item: /orders/{orderId} }`), where YAML reads `{orderId}` as a mapping. The reason js-yaml
 * gives ("missed comma between flow collection entries") does not say so; the fix does.
 */
function yamlFix(text: string, error: unknown, reason: string): string {
  const line = (error as { mark?: { line: number } }).mark?.line;
  const source = line === undefined ? undefined : text.split('\n')[line];
  if (/flow/.test(reason) && source !== undefined && /\/\{/.test(source)) {
    return "correct the YAML syntax there: inside { } or [ ], quote a path with a {parameter}, e.g. '/orders/{orderId}' (or write it in block style)";
  }
  return 'correct the YAML syntax there';
}

function markOf(error: unknown): string {
  const mark = (error as { mark?: { line: number; column: number } }).mark;
  return mark ? ` at line ${mark.line + 1}, column ${mark.column + 1}` : '';
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return `a ${(value as object).constructor?.name ?? 'object'}`;
  return `a ${typeof value}`;
}

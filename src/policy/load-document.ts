import { readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { load } from 'js-yaml';
import { ConfigError } from './config-error';

export interface LoadedDocument {
  value: unknown;
  /** The absolute file path, or `<inline what>` for an object passed in. */
  file: string;
  /** The folder relative `$ref`s resolve against; null for objects (then the working directory). */
  dir: string | null;
}

/** Reads a configuration value given as an object, or as a path to a .json, .yaml or .yml file. */
export function loadDocument(source: unknown, what: string): LoadedDocument {
  if (typeof source === 'string') return readDocumentFile(resolve(source), what);
  if (isPlainObject(source)) return { value: source, file: `<inline ${what}>`, dir: null };
  throw new ConfigError(`<inline ${what}>`, '$', `the ${what} is ${describe(source)}`, 'pass an object or the path of a .json, .yaml or .yml file');
}

export function readDocumentFile(file: string, what: string): LoadedDocument {
  const extension = extname(file).toLowerCase();
  if (!['.json', '.yaml', '.yml'].includes(extension)) {
    throw new ConfigError(file, '$', `cannot tell the format of the ${what} from the extension "${extension}"`, 'use a .json, .yaml or .yml file');
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(file, '$', `cannot read the ${what} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'check the path and the file permissions');
  }
  const value = extension === '.json' ? parseJson(text, file) : parseYaml(text, file);
  if (!isPlainObject(value)) throw new ConfigError(file, '$', `the ${what} is ${describe(value)}`, 'the top level must be an object');
  return { value, file, dir: dirname(file) };
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message)?.[1];
    throw new ConfigError(file, '$', `invalid JSON${position === undefined ? '' : lineAndColumn(text, Number(position))}: ${message}`, 'correct the JSON syntax there');
  }
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return ` at line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

/** The default js-yaml schema builds no functions or classes, and duplicate keys are errors. */
function parseYaml(text: string, file: string): unknown {
  try {
    return load(text, { filename: file });
  } catch (error) {
    const reason = (error as { reason?: string }).reason ?? (error as Error).message;
    throw new ConfigError(file, '$', `invalid YAML${markOf(error)}: ${reason}`, 'correct the YAML syntax there');
  }
}

function markOf(error: unknown): string {
  const mark = (error as { mark?: { line: number; column: number } }).mark;
  return mark ? ` at line ${mark.line + 1}, column ${mark.column + 1}` : '';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}

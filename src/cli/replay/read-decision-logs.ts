import { ConfigError } from '../../policy/compile/config-error';
import { isPlainObject } from '../../policy/compile/documents/plain-object';
import { LineSplitter, type Line } from './bounded-lines';
import { decompressed } from './decompressed';
import type { LogSource } from './decision-log-files';

/**
 * One event read, or what could not be read, with where: `logs/a.ndjson:12` (a line),
 * `batch.json.gz[3]` (an element of a JSON array), `logs/a.ndjson:4[0]` (an array on one line).
 */
export type LogEntry = { at: string; event: Record<string, unknown> } | { at: string; problem: string };

/**
 * An NDJSON line is held whole only up to this: svcgate's events are a few hundred bytes (an
 * input holds the owned parameters and claims of one request), OPA's as large as its input. A
 * longer line is counted as unreadable, read past without being held.
 */
export const MAX_LINE_BYTES = 1024 * 1024;
/** A file that is one JSON document (OPA's upload: an array of events) is read whole, up to this. OPA uploads 32 KiB compressed by default. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;
/** The most bytes a gzip file may inflate to: a day of a busy service's logs, and the end of a gzip bomb. */
export const MAX_INFLATED_BYTES = 1024 * 1024 * 1024;

const SPACE = 0x20;
const WHITESPACE = new Set([SPACE, 0x09, 0x0a, 0x0d]);
const BOM = [0xef, 0xbb, 0xbf];
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;

/**
 * The events of one file: gzip or not (by its first bytes); one JSON document (an array of
 * events, as OPA uploads them, or one event) when it starts with `[`, or is a `.json` file that
 * starts with `{`; else NDJSON, one event per line (an array on a line gives its elements; blank
 * lines are skipped). Problems of one line or element are entries, never errors: only a file that
 * cannot be read or is over a limit throws, naming the file.
 */
export async function* logEntries(source: LogSource): AsyncGenerator<LogEntry> {
  const bytes = decompressed(source.chunks(), source.name, MAX_INFLATED_BYTES);
  const { first, chunks } = await firstByte(bytes);
  if (first === undefined) return;
  const document = first === OPEN_ARRAY || (first === OPEN_OBJECT && /\.json(\.gz)?$/i.test(source.name));
  // Events one per line in a .json file are a common slip: said, as the whole file is one unreadable entry.
  if (document) yield* valueEntries(await wholeText(chunks, source.name), source.name, ' (the file is read as one JSON document; one event per line is NDJSON: name it .ndjson)');
  else {
    const splitter = new LineSplitter(MAX_LINE_BYTES);
    for await (const chunk of chunks) yield* lineEntries(splitter.push(chunk), source.name);
    yield* lineEntries(splitter.end(), source.name);
  }
}

function* lineEntries(lines: readonly Line[], name: string): Generator<LogEntry> {
  for (const line of lines) {
    const at = `${name}:${line.number}`;
    if ('tooLong' in line) yield { at, problem: `a line longer than ${MAX_LINE_BYTES} bytes` };
    else if (!isBlank(line.bytes)) yield* valueEntries(line.bytes, at);
  }
}

/**
 * The first byte that is not whitespace or a byte order mark, and every byte of the stream again.
 * Bytes before it are kept to be read again; past a line's limit of whitespace the stream is read
 * as lines, whose blank lines are skipped anyway.
 */
async function firstByte(stream: AsyncIterable<Buffer>): Promise<{ first: number | undefined; chunks: AsyncIterable<Buffer> }> {
  const iterator = stream[Symbol.asyncIterator]();
  const seen: Buffer[] = [];
  let held = 0;
  let first: number | undefined;
  let ended = false;
  while (first === undefined && !ended && held <= MAX_LINE_BYTES) {
    const next = await iterator.next();
    if (next.done === true) ended = true;
    else {
      seen.push(next.value);
      first = next.value.find((byte, index) => !WHITESPACE.has(byte) && !(held + index < BOM.length && byte === BOM[held + index]));
      held += next.value.length;
    }
  }
  const chunks = async function* (): AsyncGenerator<Buffer> {
    try {
      yield* seen;
      for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) yield next.value;
    } finally {
      // Stopped early (a limit, an error): the file is closed now, not when it is collected.
      await iterator.return?.();
    }
  };
  // Only whitespace to the end: no event. Past a line's worth of it, the rest is read as lines.
  return { first: first ?? (ended ? undefined : SPACE), chunks: chunks() };
}

async function wholeText(chunks: AsyncIterable<Buffer>, name: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let held = 0;
  for await (const chunk of chunks) {
    held += chunk.length;
    if (held > MAX_DOCUMENT_BYTES) {
      throw new ConfigError(name, '$', `the file is one JSON document over the limit of ${MAX_DOCUMENT_BYTES} bytes, which is read whole`, `write the events one per line (NDJSON), which is read as a stream: jq -c '.[]' ${name} > events.ndjson`);
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts, held);
}

/** The events of one JSON text: an object is one, an array gives each of its elements. */
function* valueEntries(bytes: Buffer, at: string, hint = ''): Generator<LogEntry> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    yield { at, problem: 'not UTF-8 text' };
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON.parse's message: Node quotes the text around the error, which may hold claims.
    yield { at, problem: `not valid JSON${hint}` };
    return;
  }
  if (!Array.isArray(value)) {
    yield eventEntry(value, at);
    return;
  }
  for (const [index, element] of value.entries()) yield eventEntry(element, `${at}[${index}]`);
}

function eventEntry(value: unknown, at: string): LogEntry {
  return isPlainObject(value) ? { at, event: value } : { at, problem: `not an event: a JSON ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}, where an event is an object` };
}

function isBlank(bytes: Buffer): boolean {
  return bytes.every((byte) => WHITESPACE.has(byte));
}

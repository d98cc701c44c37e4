import { createReadStream, readdirSync, statSync, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../policy/compile/config-error';
import { unreadable } from '../../policy/compile/documents/read-document-text';
import { STANDARD_INPUT, STANDARD_INPUT_NAME } from '../standard-input';

/** One file of decision logs: its name as reports show it, and its bytes as they come. */
export interface LogSource {
  name: string;
  chunks(): AsyncIterable<Buffer>;
}

/** What a folder held besides the files read: named in the report, so that nothing is left out unseen. */
export interface LeftOut {
  name: string;
  why: 'folder' | 'not a regular file' | 'not a log file name';
}

export interface LogSources {
  sources: LogSource[];
  leftOut: LeftOut[];
}

/** The names a folder's files are read by: NDJSON, JSON, and either one gzip-compressed. */
export const LOG_FILE_NAME = /\.(ndjson|jsonl|log|json)(\.gz)?$/i;
/** Files of one folder; far more than a day's rotated logs, and few enough to list and sort at once. */
export const MAX_FOLDER_FILES = 100_000;

/**
 * The files `--decision-logs` names: one file (any name; a pipe such as `<(zcat ...)` too), `-`
 * for standard input, or a folder. A folder's regular files with a log file name (see
 * LOG_FILE_NAME) are read in the order of their names (`2026-11-26.ndjson` before
 * `2026-11-27.ndjson`); its subfolders are not entered, and they and its other entries are left
 * out and listed.
 */
export function logSources(path: string): LogSources {
  if (path === STANDARD_INPUT) return { sources: [{ name: STANDARD_INPUT_NAME, chunks: () => process.stdin as AsyncIterable<Buffer> }], leftOut: [] };
  const stats = statOf(path);
  if (stats.isDirectory()) return folderSources(path);
  refuseDevice(path, stats);
  return { sources: [fileSource(path)], leftOut: [] };
}

function folderSources(folder: string): LogSources {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch (error) {
    throw unreadable(resolve(folder), 'decision log folder', (error as NodeJS.ErrnoException).code, 'a folder of decision log files');
  }
  if (names.length > MAX_FOLDER_FILES) throw new ConfigError(resolve(folder), '$', `the folder holds ${names.length} entries; at most ${MAX_FOLDER_FILES} are read`, 'split the logs into folders, or name fewer files');
  // Code-unit order, the same on every machine: dated names read oldest first.
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const sources: LogSource[] = [];
  const leftOut: LeftOut[] = [];
  for (const name of names) {
    const path = join(folder, name);
    // Followed: a link to a log file is read as the file.
    const stats = statOf(path);
    if (stats.isDirectory()) leftOut.push({ name: path, why: 'folder' });
    else if (!stats.isFile()) leftOut.push({ name: path, why: 'not a regular file' });
    else if (!LOG_FILE_NAME.test(name)) leftOut.push({ name: path, why: 'not a log file name' });
    else sources.push(fileSource(path));
  }
  return { sources, leftOut };
}

function fileSource(path: string): LogSource {
  return { name: path, chunks: () => readChunks(path) };
}

/** The file's bytes; a failure to open or read it names the file, as every file error of the CLI does. */
async function* readChunks(path: string): AsyncGenerator<Buffer> {
  const stream = createReadStream(path, { highWaterMark: 64 * 1024 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) yield chunk;
  } catch (error) {
    throw unreadable(resolve(path), 'decision log', (error as NodeJS.ErrnoException).code, 'a decision log file');
  } finally {
    stream.destroy();
  }
}

function statOf(path: string): Stats {
  try {
    return statSync(path);
  } catch (error) {
    throw unreadable(resolve(path), 'decision logs', (error as NodeJS.ErrnoException).code, 'a decision log file or folder');
  }
}

/** A device never ends (/dev/zero, /dev/urandom): refused rather than read for ever. A pipe ends when its writer does. */
function refuseDevice(path: string, stats: Stats): void {
  if (stats.isFile() || stats.isFIFO()) return;
  throw new ConfigError(resolve(path), '$', 'the decision logs are a device or socket, not a file', 'name a file, a folder of log files, or - for standard input');
}

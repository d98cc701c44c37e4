import { closeSync, mkdirSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../policy/compile/config-error';
import { unreadable } from '../policy/compile/documents/read-document-text';

/**
 * The files a command names beside its documents (a signing key, --out, --html, --junit,
 * --ref-root), read and written so that a failure is the ConfigError every document error is
 * (`<file> at $: cannot read the signing key (ENOENT). Fix: ...`), never Node's raw
 * `ENOENT: no such file or directory, open 'nokey.pem'`. The documents themselves are read by
 * loadDocument, which already answers this way.
 */

/**
 * The bytes of a file, at most `maxBytes` of them. Not only regular files: a key may come through
 * a pipe (`--signing-key <(vault read ...)`); the bound keeps /dev/zero from filling the memory.
 */
export function readInputFile(file: string, what: string, maxBytes: number): Buffer {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw fileError(file, 'read', what, error);
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const count = readSync(fd, chunk, 0, chunk.length, null);
      if (count === 0) break;
      chunks.push(chunk.subarray(0, count));
      total += count;
      if (total > maxBytes) throw new ConfigError(resolve(file), '$', `the ${what} is over the limit of ${maxBytes} bytes`, `name the ${what} file itself`);
    }
    return Buffer.concat(chunks, total);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw fileError(file, 'read', what, error);
  } finally {
    closeSync(fd);
  }
}

export function writeOutputFile(file: string, what: string, content: string | Uint8Array): void {
  try {
    writeFileSync(file, content);
  } catch (error) {
    throw fileError(file, 'write', what, error);
  }
}

/** Makes the folder and its parents, as `mkdir -p`. */
export function makeFolder(folder: string, what: string): void {
  try {
    mkdirSync(folder, { recursive: true });
  } catch (error) {
    throw fileError(folder, 'write', what, error);
  }
}

/** A file or folder an option names that something else reads later (--ref-root, --svc): checked before the command relies on it. */
export function checkExists(path: string, what: string, kind: 'file' | 'folder'): void {
  let isFolder: boolean;
  try {
    isFolder = statSync(path).isDirectory();
  } catch (error) {
    throw fileError(path, 'read', what, error);
  }
  if (isFolder !== (kind === 'folder')) throw new ConfigError(resolve(path), '$', `the ${what} is ${isFolder ? 'a folder' : 'a file'}`, `name a ${kind}`);
}

function fileError(file: string, verb: 'read' | 'write', what: string, error: unknown): ConfigError {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  const shown = resolve(file);
  // EEXIST: mkdir -p met a file where a folder of the path should be.
  if (code === 'ENOTDIR' || code === 'EEXIST') return new ConfigError(shown, '$', `cannot ${verb} the ${what} (${code})`, 'a part of the path is a file, not a folder: name another path');
  // Read as loadDocument reads a document, in the same words.
  if (verb === 'read') return unreadable(shown, what, code, 'a file');
  return new ConfigError(shown, '$', `cannot write the ${what} (${code})`, writeFix(code, shown));
}

function writeFix(code: string, file: string): string {
  if (code === 'EISDIR') return 'name a file, not a folder';
  if (code === 'ENOENT') return `create the folder ${dirname(file)} first, or name a file in a folder that exists`;
  return 'check the path and the permissions of its folder';
}

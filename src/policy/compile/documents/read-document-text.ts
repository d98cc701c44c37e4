import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { ConfigError } from '../config-error';

/**
 * The text of a document file, read only when it is a regular file of at most `maxBytes` bytes.
 * Opened without blocking and checked on the open descriptor: a named pipe or a device (a `$ref`
 * to one, or a link to /dev/zero) would otherwise hang or never end, and a file checked by name
 * could be swapped before it is read.
 */
export function readDocumentText(file: string, what: string, maxBytes: number): { text: string; bytes: number } {
  let fd: number;
  try {
    // O_NONBLOCK does not exist on Windows, where opening a pipe does not wait for a writer.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw unreadable(file, what, (error as NodeJS.ErrnoException).code);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw unreadable(file, what, 'EISDIR');
    if (!stat.isFile()) throw new ConfigError(file, '$', `the ${what} is not a regular file`, 'name a .json, .yaml or .yml file');
    if (stat.size > maxBytes) {
      throw new ConfigError(file, '$', `the ${what} is ${stat.size} bytes, over the limit of ${maxBytes} bytes`, 'split it into smaller files, or remove what svcgate does not need from it');
    }
    // At most the size fstat gave: a file that grows while it is read is read as it was.
    const buffer = Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < buffer.length) {
      const count = readSync(fd, buffer, read, buffer.length - read, null);
      if (count === 0) break;
      read += count;
    }
    return { text: buffer.toString('utf8', 0, read), bytes: read };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw unreadable(file, what, (error as NodeJS.ErrnoException).code);
  } finally {
    closeSync(fd);
  }
}

/**
 * A file that cannot be opened or read, in the words every reader of a named file uses (the CLI's
 * signing key and --ref-root too): `<file> at $: cannot read the <what> (ENOENT). Fix: ...`.
 * `wanted` is what to name instead of a folder.
 */
export function unreadable(file: string, what: string, code: string | undefined, wanted = 'a .json, .yaml or .yml file'): ConfigError {
  return new ConfigError(file, '$', `cannot read the ${what} (${code ?? 'error'})`, code === 'EISDIR' ? `name ${wanted}, not a folder` : 'check the path and the file permissions');
}

import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { BundleError } from './bundle-error';

const BLOCK = 512;
const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

export interface TarFile {
  /** The path inside the archive, without a leading `/`. */
  name: string;
  bytes: Uint8Array;
}

export interface TarLimits {
  /** The most bytes the archive may have once decompressed. */
  maxBytes: number;
  maxFiles: number;
}

/**
 * A gzip-compressed ustar archive of `files`, in their order. Every header has mode 644, owner 0
 * and time 0, so the same files always give the same bytes (and a static server the same ETag).
 */
export async function writeTarGz(files: readonly TarFile[]): Promise<Buffer> {
  const blocks: Buffer[] = [];
  for (const file of files) {
    blocks.push(header(file.name, file.bytes.byteLength), Buffer.from(file.bytes));
    const padding = (BLOCK - (file.bytes.byteLength % BLOCK)) % BLOCK;
    if (padding > 0) blocks.push(Buffer.alloc(padding));
  }
  blocks.push(Buffer.alloc(BLOCK * 2));
  return gzipAsync(Buffer.concat(blocks), { level: 9 });
}

function header(name: string, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const path = Buffer.from(name, 'utf8');
  if (path.length > 100) throw new BundleError('ERR_SVCGATE_BUNDLE_FILE', `the file name ${name} is longer than 100 bytes`);
  path.copy(block, 0);
  block.write('0000644\0', 100, 'ascii');
  block.write('0000000\0', 108, 'ascii');
  block.write('0000000\0', 116, 'ascii');
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  block.write('00000000000\0', 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write('0', 156, 'ascii');
  block.write('ustar\0' + '00', 257, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

/**
 * The regular files of a gzip-compressed tar archive, decompressed off the main thread and within
 * `limits`. Refused (BundleError): a name that is absolute after its leading `/`, climbs (`..`),
 * holds a NUL or a backslash, or appears twice; links, devices and other special entries; a bad
 * checksum or a truncated archive.
 */
export async function readTarGz(bytes: Uint8Array, limits: TarLimits): Promise<Map<string, Buffer>> {
  let tar: Buffer;
  try {
    tar = await gunzipAsync(bytes, { maxOutputLength: limits.maxBytes });
  } catch (error) {
    const tooLarge = (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE';
    throw new BundleError('ERR_SVCGATE_BUNDLE_ARCHIVE', tooLarge ? `the bundle is larger than ${limits.maxBytes} bytes once decompressed` : 'the bundle is not a gzip archive');
  }
  const files = new Map<string, Buffer>();
  let longName: string | undefined;
  for (let offset = 0; ; ) {
    if (offset + BLOCK > tar.length) throw new BundleError('ERR_SVCGATE_BUNDLE_ARCHIVE', 'the tar archive is truncated');
    const block = tar.subarray(offset, offset + BLOCK);
    if (block.every((byte) => byte === 0)) return files;
    checkSum(block);
    const size = octal(block.subarray(124, 136));
    const type = String.fromCharCode(block[156]!);
    const start = offset + BLOCK;
    if (start + size > tar.length) throw new BundleError('ERR_SVCGATE_BUNDLE_ARCHIVE', 'the tar archive is truncated');
    const content = tar.subarray(start, start + size);
    offset = start + Math.ceil(size / BLOCK) * BLOCK;

    if (type === 'x') {
      longName = paxPath(content) ?? longName;
      continue;
    }
    if (type === 'L') {
      longName = text(content);
      continue;
    }
    if (type === 'g' || type === '5') continue;
    if (type !== '0' && type !== '\0') throw new BundleError('ERR_SVCGATE_BUNDLE_FILE', `the archive holds a special entry (type ${JSON.stringify(type)}); a bundle holds regular files only`);
    const name = safeName(longName ?? ustarName(block));
    longName = undefined;
    if (files.has(name)) throw new BundleError('ERR_SVCGATE_BUNDLE_FILE', `the archive holds ${name} twice`);
    if (files.size >= limits.maxFiles) throw new BundleError('ERR_SVCGATE_BUNDLE_FILE', `the archive holds more than ${limits.maxFiles} files`);
    files.set(name, content);
  }
}

function checkSum(block: Buffer): void {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i]!;
  if (sum !== octal(block.subarray(148, 156))) throw new BundleError('ERR_SVCGATE_BUNDLE_ARCHIVE', 'a tar header has a wrong checksum');
}

function octal(field: Buffer): number {
  const digits = text(field).trim();
  if (!/^[0-7]{1,12}$/.test(digits)) throw new BundleError('ERR_SVCGATE_BUNDLE_ARCHIVE', 'a tar header has a malformed number');
  return Number.parseInt(digits, 8);
}

function text(field: Buffer): string {
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? field.length : end).toString('utf8');
}

function ustarName(block: Buffer): string {
  const name = text(block.subarray(0, 100));
  const prefix = block.subarray(257, 263).toString('latin1') === 'ustar\0' ? text(block.subarray(345, 500)) : '';
  return prefix === '' ? name : `${prefix}/${name}`;
}

/** The `path` record of a PAX extended header: `<length> path=<value>\n`. */
function paxPath(content: Buffer): string | undefined {
  for (const record of content.toString('utf8').split('\n')) {
    const match = /^\d+ path=(.*)$/s.exec(record);
    if (match) return match[1];
  }
  return undefined;
}

function safeName(raw: string): string {
  const name = raw.replace(/^(\.?\/)+/, '');
  const segments = name.split('/');
  if (name === '' || raw.includes('\0') || raw.includes('\\') || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new BundleError('ERR_SVCGATE_BUNDLE_FILE', `the archive holds a file named ${JSON.stringify(raw)}, which is not a plain relative path`);
  }
  return name;
}

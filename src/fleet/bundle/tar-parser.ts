import { BundleError } from './bundle-error';
import type { ArchiveLimits } from './bundle-limits';
import { paxPath } from './pax-records';
import { quoted } from '../../policy/compile/quoted-text';

export const TAR_BLOCK = 512;

/** The entry whose body is being read: a file kept whole, a record read then handled, or bytes skipped. */
interface PendingBody {
  size: number;
  filled: number;
  /** Undefined for bodies that are skipped (a folder's). */
  bytes: Buffer | undefined;
  done: (bytes: Buffer) => void;
}

/**
 * Reads a tar archive piece by piece as it is decompressed, so that a limit stops the reading
 * (and the decompression) at the entry that breaks it. Every regular file is kept in a buffer of
 * its own exact size: what a caller keeps holds that file, not the archive around it.
 */
export class TarParser {
  readonly files = new Map<string, Buffer>();
  private entries = 0;
  private bytesSeen = 0;
  private ended = false;
  private readonly header = Buffer.alloc(TAR_BLOCK);
  private headerFilled = 0;
  private body: PendingBody | undefined;
  private padding = 0;
  /** The next entry's name from a PAX header or a GNU long-name record, which come before it. */
  private paxName: string | undefined;
  private gnuName: string | undefined;

  constructor(private readonly limits: ArchiveLimits) {}

  /** Takes the next decompressed bytes. Bytes after the end block are counted, not read. */
  write(chunk: Buffer): void {
    this.bytesSeen += chunk.length;
    if (this.bytesSeen > this.limits.maxInflatedBytes) throw new BundleError('ERR_SVCGATE_BUNDLE_ARCHIVE', `the bundle is larger than ${this.limits.maxInflatedBytes} bytes once decompressed`);
    let at = 0;
    while (at < chunk.length && !this.ended) {
      if (this.padding > 0) {
        const skipped = Math.min(this.padding, chunk.length - at);
        this.padding -= skipped;
        at += skipped;
      } else if (this.body !== undefined) {
        at += this.fillBody(this.body, chunk, at);
      } else {
        const taken = Math.min(TAR_BLOCK - this.headerFilled, chunk.length - at);
        chunk.copy(this.header, this.headerFilled, at, at + taken);
        this.headerFilled += taken;
        at += taken;
        if (this.headerFilled === TAR_BLOCK) {
          this.headerFilled = 0;
          this.readHeader(this.header);
        }
      }
    }
  }

  /** The files, once every byte is written; an archive that stops before its end block is truncated. */
  finish(): Map<string, Buffer> {
    if (!this.ended) throw new BundleError('ERR_SVCGATE_BUNDLE_ARCHIVE', 'the tar archive is truncated');
    return this.files;
  }

  private fillBody(body: PendingBody, chunk: Buffer, at: number): number {
    const taken = Math.min(body.size - body.filled, chunk.length - at);
    if (body.bytes !== undefined) chunk.copy(body.bytes, body.filled, at, at + taken);
    body.filled += taken;
    if (body.filled === body.size) this.endBody(body);
    return taken;
  }

  private endBody(body: PendingBody): void {
    this.body = undefined;
    this.padding = (TAR_BLOCK - (body.size % TAR_BLOCK)) % TAR_BLOCK;
    body.done(body.bytes ?? Buffer.alloc(0));
  }

  private startBody(size: number, keep: boolean, done: (bytes: Buffer) => void = () => undefined): void {
    // allocUnsafeSlow: a buffer of its own (not a slice of Node's shared pool), filled before use.
    const body: PendingBody = { size, filled: 0, bytes: keep ? Buffer.allocUnsafeSlow(size) : undefined, done };
    if (size === 0) this.endBody(body);
    else this.body = body;
  }

  private readHeader(block: Buffer): void {
    if (isZero(block)) {
      this.ended = true;
      return;
    }
    this.entries += 1;
    if (this.entries > this.limits.maxEntries) {
      throw new BundleError('ERR_SVCGATE_BUNDLE_ARCHIVE', `the archive holds more than ${this.limits.maxEntries} entries (tar headers of any type: files, folders, PAX and long-name records)`);
    }
    checkSum(block);
    const size = octal(block.subarray(124, 136));
    if (size > this.limits.maxInflatedBytes) throw new BundleError('ERR_SVCGATE_BUNDLE_ARCHIVE', `the bundle is larger than ${this.limits.maxInflatedBytes} bytes once decompressed`);
    const type = String.fromCharCode(block[156]!);
    switch (type) {
      case '0':
      case '\0':
        this.startFile(block, size);
        return;
      case '5':
        // A folder: nothing to keep, and no name left over for the next entry.
        this.paxName = this.gnuName = undefined;
        this.startBody(size, false);
        return;
      case 'x':
        this.startRecord(size, 'PAX extended header', (bytes) => (this.paxName = paxPath(bytes) ?? this.paxName));
        return;
      case 'g':
        // Global PAX headers (git archive writes the commit there) name no file; still read as records.
        this.startRecord(size, 'PAX global header', (bytes) => void paxPath(bytes));
        return;
      case 'L':
        this.startRecord(size, 'GNU long name', (bytes) => (this.gnuName = text(bytes)));
        return;
      case 'K':
        // A long link target: the link that follows it is refused as a special entry.
        this.startRecord(size, 'GNU long link name', () => undefined);
        return;
      default:
        throw new BundleError('ERR_SVCGATE_BUNDLE_FILE', `the archive holds a special entry (type ${quoted(type)}); a bundle holds regular files only`);
    }
  }

  private startRecord(size: number, what: string, done: (bytes: Buffer) => void): void {
    if (size > this.limits.maxRecordBytes) {
      throw new BundleError('ERR_SVCGATE_BUNDLE_ARCHIVE', `the archive holds a ${what} of ${size} bytes; at most ${this.limits.maxRecordBytes} are read (real tools write a path and a few times there)`);
    }
    this.startBody(size, true, done);
  }

  private startFile(block: Buffer, size: number): void {
    const name = safeName(this.paxName ?? this.gnuName ?? ustarName(block));
    this.paxName = this.gnuName = undefined;
    if (this.files.has(name)) throw new BundleError('ERR_SVCGATE_BUNDLE_FILE', `the archive holds ${quoted(name)} twice`);
    if (this.files.size >= this.limits.maxFiles) throw new BundleError('ERR_SVCGATE_BUNDLE_FILE', `the archive holds more than ${this.limits.maxFiles} files`);
    this.startBody(size, true, (bytes) => this.files.set(name, bytes));
  }
}

function isZero(block: Buffer): boolean {
  for (let i = 0; i < TAR_BLOCK; i++) if (block[i] !== 0) return false;
  return true;
}

function checkSum(block: Buffer): void {
  let sum = 0;
  for (let i = 0; i < TAR_BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i]!;
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

function safeName(raw: string): string {
  const name = raw.replace(/^(\.?\/)+/, '');
  const segments = name.split('/');
  if (name === '' || raw.includes('\0') || raw.includes('\\') || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new BundleError('ERR_SVCGATE_BUNDLE_FILE', `the archive holds a file named ${quoted(raw)}, which is not a plain relative path`);
  }
  return name;
}

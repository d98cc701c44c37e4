import { promisify } from 'node:util';
import { createGunzip, gzip } from 'node:zlib';
import { BundleError } from './bundle-error';
import { BUNDLE_LIMITS, type ArchiveLimits } from './bundle-limits';
import { TAR_BLOCK as BLOCK, TarParser } from './tar-parser';
import { quoted } from '../../policy/compile/quoted-text';

const gzipAsync = promisify(gzip);

export interface TarFile {
  /** The path inside the archive, without a leading `/`. */
  name: string;
  bytes: Uint8Array;
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
  if (path.length > 100) throw new BundleError('ERR_SVCGATE_BUNDLE_FILE', `the file name ${quoted(name)} is longer than 100 bytes`);
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
 * The regular files of a gzip-compressed tar archive, within `limits`: decompressed off the main
 * thread and read as the bytes come, so that reading stops at the first limit broken (bytes once
 * decompressed, files, headers of any type, PAX and long-name records). Refused (BundleError): a
 * name that is absolute after its leading `/`, climbs (`..`), holds a NUL or a backslash, or
 * appears twice; links, devices and other special entries; a bad checksum or a truncated archive.
 * Each file is a buffer of its own.
 */
export function readTarGz(bytes: Uint8Array, limits: ArchiveLimits = BUNDLE_LIMITS): Promise<Map<string, Buffer>> {
  const parser = new TarParser(limits);
  return new Promise((resolve, reject) => {
    let settled = false;
    const inflater = createGunzip({ chunkSize: 64 * 1024 });
    const settle = (error: unknown, files?: Map<string, Buffer>) => {
      if (settled) return;
      settled = true;
      if (error === undefined) resolve(files!);
      else {
        inflater.destroy();
        reject(error);
      }
    };
    inflater.on('data', (chunk: Buffer) => {
      if (settled) return;
      try {
        parser.write(chunk);
      } catch (error) {
        settle(error);
      }
    });
    inflater.on('error', () => settle(new BundleError('ERR_SVCGATE_BUNDLE_ARCHIVE', 'the bundle is not a gzip archive')));
    inflater.on('end', () => {
      try {
        settle(undefined, parser.finish());
      } catch (error) {
        settle(error);
      }
    });
    inflater.end(bytes);
  });
}

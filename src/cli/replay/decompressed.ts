import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ConfigError } from '../../policy/compile/config-error';

/** gzip's magic bytes (RFC 1952): a file is read as gzip when it starts with them, whatever its name. */
const GZIP_MAGIC = [0x1f, 0x8b];

/**
 * The bytes of a stream, decompressed when they are gzip (one member or several, as `cat a.gz b.gz`
 * writes). Decompressed bytes are counted and refused past `maxInflatedBytes`, so a small file that
 * inflates without end (a gzip bomb) stops there with an error that names the file.
 */
export async function* decompressed(chunks: AsyncIterable<Buffer>, file: string, maxInflatedBytes: number): AsyncGenerator<Buffer> {
  const iterator = chunks[Symbol.asyncIterator]();
  // Enough of the start to see the magic bytes: a pipe may give fewer than two at first.
  const head: Buffer[] = [];
  let headBytes = 0;
  while (headBytes < GZIP_MAGIC.length) {
    const next = await iterator.next();
    if (next.done === true) break;
    head.push(next.value);
    headBytes += next.value.length;
  }
  const start = Buffer.concat(head, headBytes);
  const rest: AsyncIterable<Buffer> = { [Symbol.asyncIterator]: () => iterator };
  if (!GZIP_MAGIC.every((byte, index) => start[index] === byte)) {
    if (start.length > 0) yield start;
    yield* rest;
    return;
  }
  const source = Readable.from(prepended(start, rest), { objectMode: false });
  // Larger pieces than zlib's 16 KiB: a quarter of the time for a large file, each piece passed on once.
  const gunzip = createGunzip({ chunkSize: 256 * 1024 });
  source.once('error', (error) => gunzip.destroy(error));
  source.pipe(gunzip);
  let inflated = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      if (inflated > maxInflatedBytes) {
        throw new ConfigError(file, '$', `decompressed, the file is over the limit of ${maxInflatedBytes} bytes (a gzip bomb, or logs to split)`, 'split the logs into smaller files (each at most that many bytes decompressed), or give them uncompressed: a plain file is read as a stream, whatever its size');
      }
      yield chunk;
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const { code } = error as NodeJS.ErrnoException;
    // zlib's codes (Z_DATA_ERROR, Z_BUF_ERROR for a cut file): the file is not whole gzip. A read error is the file's own.
    if (typeof code === 'string' && code.startsWith('Z_')) throw new ConfigError(file, '$', `the file starts as gzip but does not decompress (${code}: ${(error as Error).message})`, 'give the whole file (a log still being written or cut short is not whole gzip), or decompress it first');
    throw error;
  } finally {
    source.destroy();
    gunzip.destroy();
  }
}

async function* prepended(first: Buffer, rest: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  yield first;
  yield* rest;
}

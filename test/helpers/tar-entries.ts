import { gunzipSync, gzipSync } from 'node:zlib';

/** The two zero blocks that end a tar archive. */
export const TAR_END = Buffer.alloc(1024);

/**
 * One tar entry (a checksummed ustar header of `type`, the content, the padding) as any tar
 * writer, or an attacker, could produce it: for archives svcgate's own writer never writes.
 */
export function tarEntry(name: string, type: string, content: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 'utf8');
  header.write('0000644\0', 100);
  header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write('        ', 148);
  header.write(type, 156);
  header.write('ustar\x0000', 257, 'latin1');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const padding = Buffer.alloc((512 - (content.length % 512)) % 512);
  return Buffer.concat([header, content, padding]);
}

/** A PAX record, `<length> <key>=<value>\n`, whose length counts itself. */
export function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  const size = Buffer.byteLength(body);
  let length = size + 1;
  while (length !== size + String(length).length) length = size + String(length).length;
  return Buffer.from(`${length}${body}`, 'utf8');
}

/** A gzip-compressed archive of `entries`, ended as tar ends one. */
export function tarGz(entries: Buffer[]): Buffer {
  return gzipSync(Buffer.concat([...entries, TAR_END]));
}

/** `bundle` (as writeBundle writes it) with raw entries put before and after its own, its own unchanged. */
export function withEntries(bundle: Buffer, before: Buffer[], after: Buffer[] = []): Buffer {
  const tar = gunzipSync(bundle);
  return tarGz([...before, tar.subarray(0, tar.length - TAR_END.length), ...after]);
}

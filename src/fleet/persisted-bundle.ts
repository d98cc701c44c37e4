import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BundlePersistError } from './bundle-persist-error';
import { bundleDigest } from './sliced-digest';

/**
 * What is kept beside the bundle so that a restart resumes where the last run left off, bound to
 * the bundle's bytes by their digest: an ETag or a check time beside other bytes (a bundle write
 * that failed while the check's succeeded) would let an old revision pass for the server's current
 * one, so such a record is not used at all.
 */
export interface PersistedCheck {
  /** The SHA-256 (hex) of the bundle's bytes that this record describes. */
  digest: string;
  etag: string | undefined;
  /** Milliseconds since the epoch of the last request that answered 200 or 304: `maxAgeSeconds` counts from it. */
  checkedAt: number;
}

export type PersistedBundle =
  | { found: 'none' }
  /** A bundle is there, but no record bound to its bytes: used as if nothing were persisted. */
  | { found: 'unbound'; reason: string }
  | { found: 'bundle'; bytes: Buffer; check: PersistedCheck };

const BUNDLE_FILE = 'bundle.tar.gz';
const CHECK_FILE = 'check.json';
/** svcgate writes about 150 bytes; a larger file is not its record. */
const MAX_CHECK_BYTES = 4096;

/**
 * The last good bundle of `name` with its record, read back as one unit. The bundle is verified
 * again before use; a check time in the future (a clock that was ahead) counts as now, or it
 * would hold off `maxAgeSeconds` for as long as the clock was ahead.
 */
export async function persistedBundle(dir: string, name: string, maxBytes: number): Promise<PersistedBundle> {
  const file = join(dir, name, BUNDLE_FILE);
  let bytes: Buffer;
  try {
    if ((await stat(file)).size > maxBytes) return { found: 'unbound', reason: `${file} is larger than maxBytes` };
    bytes = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { found: 'none' };
    throw persistError(`the persisted bundle ${file} cannot be read`, error);
  }
  const check = await readCheck(join(dir, name, CHECK_FILE));
  if (check === undefined) return { found: 'unbound', reason: `${CHECK_FILE} is missing or not svcgate's record` };
  if (check.digest !== (await bundleDigest(bytes))) return { found: 'unbound', reason: `${CHECK_FILE} describes other bytes than ${BUNDLE_FILE} (a write that did not complete)` };
  return { found: 'bundle', bytes, check: { ...check, checkedAt: Math.min(check.checkedAt, Date.now()) } };
}

/**
 * Writes the bundle, then its record, each to a temporary file renamed over the old one. A crash
 * or a failure between the two leaves a record of other bytes, which the next start ignores.
 * Throws BundlePersistError, with no temporary file left behind.
 */
export async function persistBundle(dir: string, name: string, bytes: Buffer, check: PersistedCheck): Promise<void> {
  const folder = join(dir, name);
  try {
    await mkdir(folder, { recursive: true });
  } catch (error) {
    throw persistError(`the bundle was not persisted: ${folder} cannot be created`, error);
  }
  await replaceFile(join(folder, BUNDLE_FILE), bytes);
  await persistCheck(dir, name, check);
}

/** Rewrites the record alone: for the bundle already on disk, whose digest the record names. */
export async function persistCheck(dir: string, name: string, check: PersistedCheck): Promise<void> {
  await replaceFile(join(dir, name, CHECK_FILE), JSON.stringify(check));
}

async function replaceFile(file: string, content: Buffer | string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, content);
    await rename(temporary, file);
  } catch (error) {
    // A partly written file is of no use, and on a full disk it holds the space that is missing.
    await rm(temporary, { force: true }).catch(() => undefined);
    throw persistError(`the bundle was not persisted: ${file} cannot be written`, error);
  }
}

/** The record, or undefined when it is missing, too large or not of svcgate's shape. */
async function readCheck(file: string): Promise<PersistedCheck | undefined> {
  let text: string;
  try {
    const handle = await open(file, 'r');
    try {
      const buffer = Buffer.alloc(MAX_CHECK_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      if (bytesRead > MAX_CHECK_BYTES) return undefined;
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
  try {
    const value = JSON.parse(text) as Partial<Record<keyof PersistedCheck, unknown>>;
    if (typeof value.digest !== 'string' || !/^[0-9a-f]{64}$/.test(value.digest)) return undefined;
    const checkedAt = typeof value.checkedAt === 'number' && Number.isFinite(value.checkedAt) ? value.checkedAt : 0;
    return { digest: value.digest, etag: typeof value.etag === 'string' ? value.etag : undefined, checkedAt };
  } catch {
    return undefined;
  }
}

/** The file system's code (ENOSPC...) is named in the message; the error's own code is svcgate's. */
function persistError(message: string, error: unknown): BundlePersistError {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return new BundlePersistError(`${message}${typeof code === 'string' ? ` (${code})` : ''}`, { cause: error });
}

import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BundlePersistError } from './bundle-persist-error';
import { bundleDigest } from '../bundle/sliced-digest';

/**
 * The record kept beside the persisted bundles, and the commit point of a write: it names the
 * bundle file it describes by its digest, so an ETag or a check time is only ever used with the
 * bytes it was written for (an old bundle under a newer bundle's ETag would be answered 304 for ever).
 */
export interface PersistedCheck {
  /** The SHA-256 (hex) of the bundle's bytes that this record describes: its file is `bundle-<digest>.tar.gz`. */
  digest: string;
  etag: string | undefined;
  /** Milliseconds since the epoch of the last request that answered 200 or 304: `maxAgeSeconds` counts from it. */
  checkedAt: number;
}

/** A bundle on disk, read only when asked for. */
export interface PersistedCandidate {
  digest: string;
  /** The record that names it; undefined for a bundle written after the record, whose own record never followed. */
  check: PersistedCheck | undefined;
  /** Its bytes, their digest checked against the file's name; throws BundlePersistError when they cannot be used. */
  read(): Promise<Buffer>;
}

export interface PersistedState {
  /**
   * The bundle the record names first (when there is a record), then bundles written after it
   * whose record was not (a crash or a full disk between the two writes), newest first. Each of
   * them was activated before the restart.
   */
  candidates: PersistedCandidate[];
  /** Why what was found is not all used, for persist-failed events. */
  problems: string[];
}

const CHECK_FILE = 'check.json';
const BUNDLE_FILE = /^bundle-([0-9a-f]{64})\.tar\.gz$/;
/** The single file of the layout before bundles were named by their digest: removed at the next commit. */
const LEGACY_BUNDLE_FILE = 'bundle.tar.gz';
/** svcgate writes about 150 bytes; a larger file is not its record. */
const MAX_CHECK_BYTES = 4096;
/** Only a temporary file this old is a crashed write's: one under way in another process is left alone. */
const STALE_TEMPORARY_MS = 10 * 60 * 1000;

const bundleFile = (digest: string) => `bundle-${digest}.tar.gz`;

/**
 * What a restart finds in `<dir>/<name>/`: the candidates to boot from (each verified again by the
 * caller before use) and, with `maxPending` above 0, up to that many bundles without a record. A
 * check time in the future (a clock that was ahead) counts as now, or it would hold off
 * `maxAgeSeconds` for as long as the clock was ahead.
 */
export async function persistedState(dir: string, name: string, maxBytes: number, maxPending: number): Promise<PersistedState> {
  const folder = join(dir, name);
  let files: string[];
  try {
    files = await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { candidates: [], problems: [] };
    throw persistError(`the persisted folder ${folder} cannot be read`, error);
  }
  const problems: string[] = [];
  const candidates: PersistedCandidate[] = [];
  const check = files.includes(CHECK_FILE) ? await readCheck(join(folder, CHECK_FILE)) : undefined;
  if (files.includes(CHECK_FILE) && check === undefined) problems.push(`${join(folder, CHECK_FILE)} is not svcgate's record (damaged, or of an earlier version): the bundle it named is not used`);
  if (check !== undefined) candidates.push(candidate(folder, check.digest, { ...check, checkedAt: Math.min(check.checkedAt, Date.now()) }, maxBytes));
  const pending = await newestFirst(folder, files.filter((file) => BUNDLE_FILE.test(file) && file !== (check && bundleFile(check.digest))));
  for (const file of pending.slice(0, maxPending)) candidates.push(candidate(folder, BUNDLE_FILE.exec(file)![1]!, undefined, maxBytes));
  return { candidates, problems };
}

function candidate(folder: string, digest: string, check: PersistedCheck | undefined, maxBytes: number): PersistedCandidate {
  return { digest, check, read: () => readBundleFile(join(folder, bundleFile(digest)), digest, maxBytes) };
}

async function readBundleFile(file: string, digest: string, maxBytes: number): Promise<Buffer> {
  let bytes: Buffer;
  try {
    if ((await stat(file)).size > maxBytes) throw new BundlePersistError(`${file} is larger than maxBytes`);
    bytes = await readFile(file);
  } catch (error) {
    if (error instanceof BundlePersistError) throw error;
    throw persistError(`${file} cannot be read`, error);
  }
  if ((await bundleDigest(bytes)) !== digest) throw new BundlePersistError(`${file} does not hold the bytes its name says (damaged)`);
  return bytes;
}

/** The files by modification time, the newest first; one that cannot be looked at is left out. */
async function newestFirst(folder: string, files: string[]): Promise<string[]> {
  const timed = await Promise.all(files.map((file) => stat(join(folder, file)).then((found) => ({ file, time: found.mtimeMs }), () => undefined)));
  return timed
    .filter((found) => found !== undefined)
    .sort((a, b) => b.time - a.time)
    .map((found) => found.file);
}

/**
 * Writes the bundle to its own file, named by its digest, then commits it by replacing the
 * record: a crash or a failure before that rename leaves the previous bundle and its record as
 * they were (and the new file, which a restart reads as written without its record). Throws
 * BundlePersistError, with no temporary file left behind.
 */
export async function persistBundle(dir: string, name: string, bytes: Buffer, check: PersistedCheck): Promise<void> {
  const folder = join(dir, name);
  try {
    await mkdir(folder, { recursive: true });
  } catch (error) {
    throw persistError(`the bundle was not persisted: ${folder} cannot be created`, error);
  }
  await replaceFile(join(folder, bundleFile(check.digest)), bytes);
  await persistCheck(dir, name, check);
}

/**
 * Replaces the record (for a bundle file already on disk, whose digest it names), then removes
 * the files no record names any more: the previous bundles, the single file of the earlier
 * layout, and temporary files a crash left.
 */
export async function persistCheck(dir: string, name: string, check: PersistedCheck): Promise<void> {
  const folder = join(dir, name);
  await replaceFile(join(folder, CHECK_FILE), JSON.stringify(check));
  await removeUnnamed(folder, bundleFile(check.digest));
}

async function replaceFile(file: string, content: Buffer | string): Promise<void> {
  // Unique across processes: replicas in containers sharing a volume all run as pid 1.
  const temporary = `${file}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, content);
    await rename(temporary, file);
  } catch (error) {
    // A partly written file is of no use, and on a full disk it holds the space that is missing.
    await rm(temporary, { force: true }).catch(() => undefined);
    throw persistError(`the bundle was not persisted: ${file} cannot be written`, error);
  }
}

/** Best effort: a file that cannot be removed now is removed after the next record. */
async function removeUnnamed(folder: string, kept: string): Promise<void> {
  const files = await readdir(folder).catch(() => [] as string[]);
  const now = Date.now();
  for (const file of files) {
    const path = join(folder, file);
    const unnamed = file === LEGACY_BUNDLE_FILE || (BUNDLE_FILE.test(file) && file !== kept);
    const stale = file.endsWith('.tmp') && (await stat(path).then((found) => now - found.mtimeMs > STALE_TEMPORARY_MS, () => false));
    if (unnamed || stale) await rm(path, { force: true }).catch(() => undefined);
  }
}

/** The record, or undefined when it is unreadable, too large or not of svcgate's shape. */
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

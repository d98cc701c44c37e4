import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What is kept beside the bundle so that a restart resumes where the last run left off. */
export interface PersistedCheck {
  etag: string | undefined;
  /** Milliseconds since the epoch of the last request that answered 200 or 304: `maxAgeSeconds` counts from it. */
  checkedAt: number;
}

const BUNDLE_FILE = 'bundle.tar.gz';
const CHECK_FILE = 'check.json';

/** The last good bundle of `name`, or undefined when none was persisted. It is verified again before use. */
export async function persistedBundle(dir: string, name: string): Promise<(PersistedCheck & { bytes: Buffer }) | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(join(dir, name, BUNDLE_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { bytes, ...(await readCheck(dir, name)) };
}

/** Writes the bundle then its check, each to a temporary file renamed over the old one, so a crash leaves the old or the new, never half. */
export async function persistBundle(dir: string, name: string, bytes: Buffer, check: PersistedCheck): Promise<void> {
  await mkdir(join(dir, name), { recursive: true });
  await replaceFile(join(dir, name, BUNDLE_FILE), bytes);
  await persistCheck(dir, name, check);
}

export async function persistCheck(dir: string, name: string, check: PersistedCheck): Promise<void> {
  await replaceFile(join(dir, name, CHECK_FILE), JSON.stringify(check));
}

async function replaceFile(file: string, content: Buffer | string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, content);
  await rename(temporary, file);
}

/** A missing or unreadable check counts as never checked: with maxAgeSeconds, the bundle then waits for the server. */
async function readCheck(dir: string, name: string): Promise<PersistedCheck> {
  try {
    const value = JSON.parse(await readFile(join(dir, name, CHECK_FILE), 'utf8')) as Partial<PersistedCheck>;
    return {
      etag: typeof value.etag === 'string' ? value.etag : undefined,
      checkedAt: typeof value.checkedAt === 'number' && Number.isFinite(value.checkedAt) ? value.checkedAt : 0,
    };
  } catch {
    return { etag: undefined, checkedAt: 0 };
  }
}

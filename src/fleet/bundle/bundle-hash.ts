import { createHash } from 'node:crypto';
import { writeCanonicalDigest } from './canonical-json-digest';
import { updateInSlices } from './sliced-digest';
import { TimeSlice } from './time-slice';
import { quoted } from '../../policy/compile/quoted-text';

/**
 * The hash algorithms accepted in a bundle signature's file list. OPA also accepts MD5 and SHA-1;
 * svcgate does not, since a signer's choice of a broken hash would let a second file pass as the
 * signed one.
 */
export const FILE_HASHES: Readonly<Record<string, string>> = {
  'SHA-256': 'sha256',
  'SHA-224': 'sha224',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
  'SHA-512-224': 'sha512-224',
  'SHA-512-256': 'sha512-256',
};

/** Files that OPA hashes as parsed JSON (canonical), not as bytes. */
export function isStructured(name: string): boolean {
  const base = name.slice(name.lastIndexOf('/') + 1);
  return base === 'data.json' || base === '.manifest';
}

/**
 * A file's hash as OPA computes it for `.signatures.json`: bytes as they are, except for
 * `data.json` and `.manifest`, which are hashed in OPA's canonical form, so that reformatting the
 * JSON does not change the hash. Throws on a structured file that is not JSON.
 */
export async function fileHash(name: string, bytes: Uint8Array, algorithm: string): Promise<string> {
  const hash = createHash(FILE_HASHES[algorithm]!);
  if (!isStructured(name)) return (await updateInSlices(hash, bytes, new TimeSlice())).digest('hex');
  if (!(await writeCanonicalDigest(bytes, hash, new TimeSlice()))) throw new Error(`${quoted(name)} is not JSON`);
  return hash.digest('hex');
}

/** How a file compares with the hash its signature lists; `too-large` differs by its bytes and was not parsed. */
export type FileCheck = 'match' | 'differs' | 'too-large';

/**
 * Whether a file matches the hash its signature lists, its bytes hashed first: bytes whose hash is
 * the signed one are the signed file (for a structured file, the signed canonical text itself,
 * which `svcgate bundle` writes). Only a structured file whose bytes differ, and within
 * `maxCanonicalBytes`, is parsed and hashed in canonical form (OPA's own bundles write `<` as
 * `\u003c`, for one); a larger one is not read further, so it costs one hash of its bytes.
 */
export async function checkFile(name: string, bytes: Uint8Array, algorithm: string, expected: string, maxCanonicalBytes: number): Promise<FileCheck> {
  const hex = expected.toLowerCase();
  const slice = new TimeSlice();
  if ((await updateInSlices(createHash(FILE_HASHES[algorithm]!), bytes, slice)).digest('hex') === hex) return 'match';
  if (!isStructured(name)) return 'differs';
  if (bytes.byteLength > maxCanonicalBytes) return 'too-large';
  const hash = createHash(FILE_HASHES[algorithm]!);
  return (await writeCanonicalDigest(bytes, hash, slice)) && hash.digest('hex') === hex ? 'match' : 'differs';
}

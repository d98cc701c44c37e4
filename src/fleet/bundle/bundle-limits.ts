/** What reading a bundle's archive may cost: the one shape readBundle, readTarGz and the tar parser pass on. */
export interface ArchiveLimits {
  /** Bytes of the tar archive once decompressed, end blocks and anything after them included. */
  maxInflatedBytes: number;
  /** Regular files. */
  maxFiles: number;
  /** Tar headers of any type. */
  maxEntries: number;
  /** The body of one PAX or GNU long-name record. */
  maxRecordBytes: number;
}

/**
 * What a bundle may cost before its signature is checked (SPEC 9.1). Until then its bytes are an
 * attacker's as much as the signer's, so every step is bounded here, in bytes, entries or depth,
 * and each step reads its input once, front to back.
 */
export const BUNDLE_LIMITS = {
  /** Bytes of the tar archive once decompressed (the 1,000 roles x 1,000 paths ACL is 1.3 MiB of JSON). */
  maxInflatedBytes: 256 * 1024 * 1024,
  /** Regular files in the archive. */
  maxFiles: 1000,
  /**
   * Tar headers of any type: files, folders, PAX and GNU long-name records, anything. Counted so
   * that entries which are not files (and are not signed) cannot make the archive a long loop.
   */
  maxEntries: 10_000,
  /**
   * The body of one PAX extended header (`x`, `g`) or GNU long-name record (`L`, `K`). Real tools
   * write a path of at most PATH_MAX (4 KiB) and a few timestamps there.
   */
  maxRecordBytes: 8 * 1024,
  /** `.manifest` and `.signatures.json`, each: both are parsed whole, so they are checked for size first. */
  maxControlFileBytes: 64 * 1024,
  /**
   * The default of `verification.maxCanonicalBytes`: a JSON file (data.json, .manifest) whose bytes
   * do not hash to its signed digest is compared in OPA's canonical form only up to this size, and
   * beyond it refused without being parsed. `svcgate bundle` writes the canonical form itself, so
   * its files match by their bytes; `opa build` does not (a trailing newline, `<` as `\u003c`), so
   * every data.json it wrote takes this path. Reading one in canonical form costs up to about 16
   * bytes of memory per byte of JSON (an object of 2.4 million short keys in 16 MiB: 270 MB for
   * about 2 s, in slices), which whoever can write to the bundle server can make a replica spend
   * at each poll: the default is what a data document needs, not the whole archive.
   */
  maxCanonicalBytes: 16 * 1024 * 1024,
} as const satisfies ArchiveLimits & Record<string, number>;

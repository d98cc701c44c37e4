/**
 * The persisted copy of a bundle could not be written (a full disk, a read-only folder). What is
 * active does not change: the bundle keeps deciding, and the write is tried again at the next
 * poll. `cause` holds the file system's own error (ENOSPC, EACCES...).
 */
export class BundlePersistError extends Error {
  readonly code = 'ERR_SVCGATE_BUNDLE_PERSIST';
  override readonly name = 'BundlePersistError';
}

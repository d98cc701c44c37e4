/** A command line that cannot be run as given. */
export class UsageError extends Error {
  readonly code = 'ERR_SVCGATE_USAGE';
  override readonly name = 'UsageError';
}

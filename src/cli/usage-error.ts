/** A command line that cannot be run as given. */
export class UsageError extends Error {
  readonly code = 'ERR_SVCGATE_USAGE';
  override readonly name = 'UsageError';
  /** True when the message already says where to look (a command's --help, or the option meant), so none is added. */
  readonly helped: boolean;

  constructor(message: string, options: { helped?: boolean } = {}) {
    super(message);
    this.helped = options.helped ?? false;
  }
}

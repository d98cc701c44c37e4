/** A command line that cannot be run as given. */
export class UsageError extends Error {
  readonly code = 'ERR_SVCGATE_USAGE';
  override readonly name = 'UsageError';
  /** True when the message already says where to look (a command's --help, or the option meant), so none is added. */
  readonly helped: boolean;
  /** The command whose --help the message points to; set by main for errors its commands throw, else the overview's. */
  command: string | undefined;

  constructor(message: string, options: { helped?: boolean } = {}) {
    super(message);
    this.helped = options.helped ?? false;
  }
}

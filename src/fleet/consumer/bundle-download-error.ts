/** A bundle could not be downloaded; the message holds nothing the server sent and no credentials. */
export class BundleDownloadError extends Error {
  readonly code = 'ERR_SVCGATE_BUNDLE_DOWNLOAD';
  override readonly name = 'BundleDownloadError';

  constructor(
    message: string,
    /** The server's HTTP status when it answered other than 200 or 304. */
    readonly httpStatus?: number,
  ) {
    super(message);
  }
}

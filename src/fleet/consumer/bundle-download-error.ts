/** A bundle could not be downloaded; the message holds nothing the server sent and no credentials. */
export class BundleDownloadError extends Error {
  readonly code = 'ERR_SVCGATE_BUNDLE_DOWNLOAD';
  override readonly name = 'BundleDownloadError';
}

/**
 * A bundle was refused before activation. `code` says why: ERR_SVCGATE_BUNDLE_ARCHIVE (not a
 * readable gzip tar), _FILE (a file that does not belong), _SIGNATURE (missing, invalid, or not
 * covering every file exactly), _DATA (data that is not svcgate's data document), _MANIFEST,
 * _POLICY (a policy.wasm without an entrypoint its data needs: `plan`, for list operations).
 */
export class BundleError extends Error {
  override readonly name = 'BundleError';

  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The request could be read in more than one way, or does not fit the OpenAPI document where the
 * decision depends on it. The guard refuses it (400) before anything decides on it or handles it.
 * The name is @oas-tools/core's own for a bad request, so that host answers 400 too.
 */
export class RequestValidationError extends Error {
  override readonly name = 'RequestValidationError';
  readonly status = 400;

  constructor(
    /** `ERR_SVCGATE_TARGET` (the request target), `ERR_SVCGATE_PATH` (a path segment), `ERR_SVCGATE_PARAM` (a parameter value). */
    readonly code: 'ERR_SVCGATE_TARGET' | 'ERR_SVCGATE_PATH' | 'ERR_SVCGATE_PARAM',
    message: string,
  ) {
    // A refusal is an answer, not a fault: no stack to capture (an anonymous caller can cause it).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

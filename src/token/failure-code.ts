/**
 * The code of a refused token as a caller, a log or a metric may see it: the error's own when it
 * has the form jose's and svcgate's codes have (`ERR_`, capitals, digits and `_`, at most 64
 * characters), else one fixed code. A verifier of the app's may put anything in `code`, even
 * words from the token; that text goes neither into a 401's body nor into a metric attribute.
 */
const STABLE_CODE = /^ERR_[A-Z0-9_]{1,60}$/;
export const INVALID_TOKEN_CODE = 'ERR_SVCGATE_INVALID_TOKEN';

export function stableFailureCode(code: unknown): string {
  return typeof code === 'string' && STABLE_CODE.test(code) ? code : INVALID_TOKEN_CODE;
}

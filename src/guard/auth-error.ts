import type { Decision } from '../policy/evaluate/evaluator';
import { exposesReasons, FORBIDDEN_MESSAGE, shownReasons } from './reason-exposure';

/**
 * The policy denied the request. The host answers 403. A deny is an answer, not a fault, so it is
 * not built by Error's constructor, whose native call cost more per deny under load than the
 * decision, even with no stack captured. It is an ordinary object whose prototype chain runs
 * through Error.prototype: `instanceof Error` holds, `Object.prototype.toString` says Error, and
 * its `stack` is the one line `AuthError: <message>`, with no frames.
 */
export interface AuthError extends Error {
  readonly name: 'AuthError';
}

export class AuthError {
  readonly code = 'ERR_SVCGATE_FORBIDDEN';
  readonly name = 'AuthError';
  readonly message: string;

  constructor(
    readonly decision: Decision,
    /**
     * false: the message is a generic one, not the reasons (the host sends the message; `decision`
     * keeps them). The adapters pass what they settled at creation; left out, it is the same rule
     * read now: the reasons unless NODE_ENV is production.
     */
    exposeReasons: boolean = exposesReasons(undefined),
  ) {
    this.message = shownReasons(decision, exposeReasons, FORBIDDEN_MESSAGE) || 'forbidden';
  }

  /** What a captured stack would start with, for loggers that print `stack` (the host's `printStackTrace`). */
  get stack(): string {
    return `${this.name}: ${this.message}`;
  }
}
Object.setPrototypeOf(AuthError.prototype, Error.prototype);
Object.defineProperty(AuthError.prototype, Symbol.toStringTag, { value: 'Error' });

import type { CheckOwnership } from '../policy/evaluate/decide';
import type { PolicySource } from '../policy/evaluate/decision-source';
import type { DecisionLog } from './decision-log';
import type { ErrorAnswers } from './error-answers';
import { exposesReasons } from './reason-exposure';
import type { ShadowOptions } from './shadow/shadow-options';
import type { ShadowRunner } from './shadow/shadow-runner';

export interface AclOptions {
  /**
   * The claim that carries the role(s), as a claim path (`groups`, `realm_access.roles`,
   * `["https://example.com/roles"]`); default `role`, which is also read when this claim is absent.
   */
  roleBinding?: string;
  /**
   * `(payload, binding, value) => boolean | Promise<boolean>`: decides ownership (`own` grants)
   * instead of comparing the parameter with a claim; only exactly `true` in time owns. Default:
   * the claim named by the operation's binding is compared with the parameter. Not with list
   * operations (`x-acl-list`, SvcApi `static lists`): a callback decides one item at a time, so no
   * plan could say beforehand which items the caller owns, and the adapter refuses to start.
   */
  checkOwnership?: CheckOwnership;
  /** Milliseconds a checkOwnership call may take; past it the request is denied (403) and the late answer ignored. Default 5000. */
  checkOwnershipTimeoutMs?: number;
  /**
   * Receives every decision as an event in OPA's decision-log format (never the token);
   * `createDecisionLogUploader(...).log` fits here. Default: no log.
   */
  decisionLog?: DecisionLog;
  /** Decisions remembered per compiled ACL (see EvaluatorOptions); default 10,000, 0 for none. */
  decisionCacheSize?: number;
  /**
   * The ACL's start-up warnings are ConfigErrors instead: a grant of an action no operation of its
   * path serves (SVCGATE_UNUSED_GRANT) and, on BearerJWT and bearerJwtAcl, the built-in anonymous
   * grant where it would open operations (SVCGATE_ANONYMOUS_DEFAULT; svcAcl has no such grant).
   * Default `false` (warnings).
   */
  strict?: boolean;
  /**
   * Whether 403 (and 503) bodies state the policy's reasons, or a generic message; the decision
   * log always has them. Default: true unless `NODE_ENV` is `production` when the adapter is
   * created (read once, then).
   */
  exposeReasons?: boolean;
  /**
   * How refusals (400, 401, 403, 404, 405, 503) are answered: `'json'` (the default)
   * `{ error, message, code }`; `'problem'`, RFC 9457 `application/problem+json`; `'next'`, the
   * headers set on the response and the error (a SvcgateHttpError) passed to `next()` for the
   * app's error handler. Statuses and headers are the same in every mode.
   */
  errors?: ErrorAnswers;
  /**
   * A candidate policy decided beside the active one on sampled requests, after each answer is
   * sent, never changing or delaying it: divergences go to `decisionLog` (events with `shadow`),
   * the `svcgate.shadow.comparisons` metric and the adapter's `shadowStatus()`. Default: none.
   * See docs/fleets.md, "Rolling out a permission change".
   */
  shadow?: ShadowOptions;
}

/**
 * The options the decision step and the answers of a deny use, settled when an adapter is created.
 * Unlike AclOptions, where an absent `exposeReasons` means "by NODE_ENV", here it is the outcome:
 * required, so that nothing downstream reads an absent value as either answer.
 */
export type DecisionOptions = Pick<AclOptions, 'roleBinding' | 'checkOwnership' | 'checkOwnershipTimeoutMs' | 'decisionLog'> & {
  /** Whether 403, 503 and the decision step's 400 bodies state the reasons. */
  exposeReasons: boolean;
  /** How refusals are answered; settled to 'json' when not given. */
  errors: ErrorAnswers;
  /** The shadow candidate of the source these options decide with, built by the adapter from `shadow`. */
  shadow?: ShadowRunner;
};

/**
 * The options the decision step and the deny's answer need, picked from an adapter's validated
 * configuration when the adapter is created: `exposeReasons` is settled then (see exposesReasons).
 */
export function decisionOptions(config: AclOptions): DecisionOptions {
  return {
    roleBinding: config.roleBinding,
    checkOwnership: config.checkOwnership,
    checkOwnershipTimeoutMs: config.checkOwnershipTimeoutMs,
    decisionLog: config.decisionLog,
    exposeReasons: exposesReasons(config.exposeReasons),
    errors: config.errors ?? 'json',
  };
}

import type { OperationFacts } from '../policy/compile/data-document';
import type { Decision } from '../policy/evaluate/evaluator';
import type { OperationMatch } from '../policy/request/match-operation';
import type { DecisionSource } from '../policy/evaluate/decision-source';
import { logOtherScheme, type DecisionLog } from './decision-log';
import { filterAttributes } from './filter-attributes';
import type { Guard, GuardedRequest, RequestAuth } from './guard-request';
import { NO_ITEMS, withPlanOf } from './list-operations';

const NOTHING: string[] = Object.freeze([]) as unknown as string[];

/** `req.auth.filter` of every such request: one function, built once, that keeps nothing. */
const keepNothing = <T>(value: T): T => filterAttributes(value, NOTHING);

/**
 * What `req.auth.decision` says of a request that met a security alternative without the bearer
 * scheme: allowed, as the document's security lets it in, with no attributes, no role and no
 * reasons, since the policy was not asked. Frozen: one for every such request.
 */
export const ALLOWED_BY_OTHER_SCHEME: Decision = Object.freeze({ allow: true, attributes: NOTHING, role: null, possession: null, scopes: NOTHING, reasons: NOTHING });

/** The same on a list operation, with the plan of no item (`req.auth.list` is its `list`, as on every list operation). */
const LISTED_BY_OTHER_SCHEME: Decision = Object.freeze({ ...ALLOWED_BY_OTHER_SCHEME, list: NO_ITEMS });

/**
 * What `req.auth.decision` (`res.locals.oas.acl.decision`) says of a request to `operation` another
 * scheme admitted, logged as the handler gets it: every host that lets such a request on logs it here.
 */
export function admittedByOtherScheme(log: DecisionLog | undefined, source: DecisionSource, key: string, operation: OperationFacts, schemes: readonly string[]): Decision {
  const decision = operation.list === undefined ? ALLOWED_BY_OTHER_SCHEME : LISTED_BY_OTHER_SCHEME;
  logOtherScheme(log, source, key, decision, schemes);
  return decision;
}

/**
 * Lets on a request that another scheme admitted (OpenAPI security alternatives, SPEC 7.9): no
 * decision of the bearer ACL, but a decision-log event that says which schemes admitted it, and
 * `req.auth` for the handler. Its `filter` keeps nothing: the ACL granted no attribute to a caller
 * it never saw, so a handler written for bearer callers shows such a caller nothing rather than
 * everything.
 */
export function admitByOtherScheme(guard: Guard, operation: OperationMatch, req: GuardedRequest, schemes: readonly string[]): void {
  const decision = admittedByOtherScheme(guard.options.decisionLog, guard.evaluator, operation.key, operation.operation, schemes);
  // A list operation's handler finds a plan as on every request: one that lists nothing, as filter keeps nothing.
  req.auth = withPlanOf<RequestAuth>({ payload: undefined, decision, filter: keepNothing, schemes }, decision);
}

import { ConfigError } from '../policy/compile/config-error';
import type { OperationFacts } from '../policy/compile/data-document';
import type { CheckOwnership } from '../policy/evaluate/decide';
import { denied, type Decision } from '../policy/evaluate/evaluator';
import type { ListPlan } from '../policy/evaluate/list-plan';

/**
 * The plan of a list operation's request that the policy was not asked about (a caller another
 * security scheme let in): no item, as such a caller's `filter` keeps no attribute. The handler
 * decides what that caller sees (`schemes` says who it is); a query built from this plan returns
 * nothing rather than every row. Frozen: one for every such request.
 */
export const NO_ITEMS: ListPlan = Object.freeze({ kind: 'none', anyOf: Object.freeze([]) as unknown as ListPlan['anyOf'], attributes: Object.freeze([]) as unknown as string[] });

/**
 * An allowed decision on a list operation must carry the items it allows (the policy's `plan`):
 * a decision source that allows one without them (a PolicySource of the app's own, a policy that
 * has no `plan` rule) is a deny, never a handler that runs with no plan to query by.
 */
export function withListPlan(operation: OperationFacts, decision: Decision): Decision {
  if (operation.list === undefined || !decision.allow || decision.unavailable) return decision;
  const kind = decision.list?.kind;
  if (kind === 'all' || kind === 'some') return decision;
  return { ...denied(`the policy allowed the list operation (x-acl-list) without the plan of its items (kind ${kind === undefined ? 'missing' : String(kind)}), so no handler may run`), list: NO_ITEMS };
}

/**
 * What a handler reads (`req.auth`, `res.locals.oas.acl`) with `list` set exactly when the decision
 * carries a plan: the same object as `decision.list`, and no `list` key on any other operation.
 */
export function withPlanOf<Target extends { list?: ListPlan }>(target: Target, decision: Decision): Target {
  if (decision.list !== undefined) target.list = decision.list;
  return target;
}

/** How an adapter's app writes what refuseOwnershipCallback's fix asks for. */
export interface ListDeclarationWords {
  /** How the item's owned parameters are bound to claims, e.g. `bind the item's owned parameters to claims with x-acl-binding`. */
  bind: string;
  /** What declares a list operation, e.g. `x-acl-list`. */
  declaration: string;
}

/** The words of an OpenAPI document's app (bearerJwtAcl, BearerJWT). */
export const DOCUMENT_LISTS: ListDeclarationWords = { bind: "bind the item's owned parameters to token claims with x-acl-binding", declaration: 'x-acl-list' };

/**
 * `checkOwnership` decides ownership one item at a time, in code the policy cannot see, so no
 * plan can say beforehand which items of a list operation the caller owns: starting with both is
 * a ConfigError, rather than a list broader or narrower than the items one by one.
 */
export function refuseOwnershipCallback(operations: Readonly<Record<string, OperationFacts>>, checkOwnership: CheckOwnership | undefined, file: string, words: ListDeclarationWords): void {
  if (checkOwnership === undefined) return;
  const lists = Object.entries(operations).filter(([, operation]) => operation.list !== undefined);
  if (lists.length === 0) return;
  const [key, operation] = lists[0]!;
  const named = operation.operation_id === null ? key : `${key} (${operation.operation_id})`;
  const others = lists.length > 1 ? ` (and ${lists.slice(1).map(([other]) => other).join(', ')})` : '';
  throw new ConfigError(
    file,
    '$.checkOwnership',
    `checkOwnership decides ownership one item at a time, so no plan can say which items of the list operation ${named}${others} the caller owns (it lists ${operation.list!.item})`,
    `${words.bind} and drop checkOwnership; or keep checkOwnership, drop the ${words.declaration} of ${key} and filter its rows in the handler`,
  );
}

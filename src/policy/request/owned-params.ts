import { claimPath, type ClaimPath } from './claim-path';
import { paramKey, type OperationFacts, type ParamSpec } from '../compile/data-document';

/** An owned parameter of an operation, with its input key and its binding's claim path. */
export interface OwnedParam {
  /** Its key in the input's `params`, `claims` and `checks`. */
  key: string;
  param: ParamSpec;
  binding: ClaimPath;
}

const remembered = new WeakMap<Pick<OperationFacts, 'params'>, readonly OwnedParam[]>();

/**
 * The parameters of an operation that ownership is judged on, in the order of its `params`.
 * Every request to the operation reads them, so they are worked out on its first request and
 * remembered for as long as its facts are in use (a new data document brings new facts).
 */
export function ownedParams(operation: Pick<OperationFacts, 'params'>): readonly OwnedParam[] {
  let owned = remembered.get(operation);
  if (owned === undefined) {
    owned = Object.values(operation.params)
      .filter((param) => param.owned)
      .map((param) => ({ key: paramKey(param), param, binding: claimPath(param.binding) }));
    remembered.set(operation, owned);
  }
  return owned;
}

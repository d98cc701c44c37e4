import type { OperationFacts } from './data-document';

/**
 * What a deny says for each owned parameter of the operation that the caller does not own, keyed
 * like `params`. The policy reads these rather than building the message on every denied request.
 * On a list operation they are the item's parameters for which the token holds no value, so that
 * `read:own` can list nothing.
 */
export function unownedReasons(operation: OperationFacts): Record<string, string> {
  if (operation.list !== undefined) {
    const { item, params } = operation.list;
    return Object.fromEntries(Object.entries(params).map(([key, param]) => [key, `read:own lists nothing: the token holds no value of claim ${param.binding} for ${param.in} parameter ${param.name} of ${item}`]));
  }
  return Object.fromEntries(
    Object.entries(operation.params)
      .filter(([, param]) => param.owned)
      .map(([key, param]) => [key, `${operation.action}:own needs ownership of ${param.in} parameter ${param.name}`]),
  );
}

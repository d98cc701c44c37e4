import type { OperationFacts } from './data-document';

/**
 * What a deny says for each owned parameter of the operation that the caller does not own, keyed
 * like `params`. The policy reads these rather than building the message on every denied request.
 */
export function unownedReasons(operation: OperationFacts): Record<string, string> {
  return Object.fromEntries(
    Object.entries(operation.params)
      .filter(([, param]) => param.owned)
      .map(([key, param]) => [key, `${operation.action}:own needs ownership of ${param.in} parameter ${param.name}`]),
  );
}

import type { OperationFacts } from '../../policy/compile/data-document';
import { quoted } from '../../policy/compile/quoted-text';

/** Enough to see what is wrong without flooding a log with a whole API. */
const MAX_LISTED = 10;

/** The part of an API that decides which requests reach which operation. */
export interface ApiShape {
  scheme: string;
  operations: Record<string, OperationFacts>;
}

/**
 * How a bundle's data differs from the API an adapter serves: the scheme, operations only on one
 * side, and the facts of an operation (parameters, bindings, scopes...) that the two compiled
 * differently. Empty when the bundle decides exactly the operations the adapter routes to.
 */
export function operationDifferences(api: ApiShape, data: ApiShape): string[] {
  const differences: string[] = [];
  if (data.scheme !== api.scheme) differences.push(`the bundle guards the scheme ${quoted(data.scheme)}, the API ${quoted(api.scheme)}`);
  for (const key of Object.keys(api.operations)) {
    const compiled = Object.hasOwn(data.operations, key) ? data.operations[key] : undefined;
    if (compiled === undefined) differences.push(`${quoted(key)} is in the OpenAPI document but not in the bundle`);
    else differences.push(...factDifferences(key, api.operations[key]!, compiled));
  }
  for (const key of Object.keys(data.operations)) {
    if (!Object.hasOwn(api.operations, key)) differences.push(`${quoted(key)} is in the bundle but not in the OpenAPI document`);
  }
  if (differences.length <= MAX_LISTED) return differences;
  return [...differences.slice(0, MAX_LISTED), `and ${differences.length - MAX_LISTED} more`];
}

/**
 * How a data document (a bundle's, OPA's) differs from what an adapter expects: the anonymous
 * default first, never cut from the list, then the operations (operationDifferences).
 */
export function dataDifferences(api: ApiShape & { anonymousDefault?: 'none' }, data: ApiShape & { anonymous_default: boolean }): string[] {
  const anonymous = api.anonymousDefault === 'none' && data.anonymous_default ? [ANONYMOUS_DEFAULT_GRANTED] : [];
  return [...anonymous, ...operationDifferences(api, data)];
}

const ANONYMOUS_DEFAULT_GRANTED =
  "its data grants callers without a role the built-in anonymous default (anonymous_default: true: read:any on every secured read operation without parameters), which svcAcl never grants; build it from the document svcAclOpenApi() returns (x-acl-anonymous-default: none), or with svcgate bundle --anonymous-default none";

/**
 * What an ACL adds to an operation: what roles are granted is the data's to say. An adapter whose
 * active source is a declaration (`acl`) connects a shadow candidate with its compiled operations,
 * which carry them; a candidate is one because its grants differ.
 */
const GRANTED_FIELDS: ReadonlySet<string> = new Set(['grants', 'unowned_reasons']);

function factDifferences(key: string, expected: OperationFacts, compiled: OperationFacts): string[] {
  const fields = (Object.keys(expected) as (keyof OperationFacts)[]).filter((field) => !GRANTED_FIELDS.has(field));
  // A list operation on one side only is a difference too: the plan decides which items a handler returns.
  if (compiled.list !== undefined && expected.list === undefined) fields.push('list');
  return fields.filter((field) => canonical(expected[field]) !== canonical(compiled[field])).map((field) => `${quoted(key)}: ${field} differs`);
}

/** JSON with object keys sorted, so that the same facts compare equal whatever order they were written in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : item,
  );
}

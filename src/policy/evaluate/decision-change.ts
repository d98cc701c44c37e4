import { includesAttributes } from '../attributes/attribute-coverage';
import type { Decision } from './evaluator';
import type { ListCondition, ListPlan } from './list-plan';

/**
 * How a second decision of the same input differs from the first, in `svcgate diff`'s words:
 * `widened`, the caller gets more (allowed where it was denied, more fields, more rows);
 * `narrowed`, less; `changed`, some of both (other fields, other rows).
 */
export type DecisionChange = 'widened' | 'narrowed' | 'changed';

/**
 * Undefined when both decisions let the caller do and see the same: reasons, the deciding role
 * and the spelling of attribute globs do not count (`["*"]` and `["*","id"]` show the same
 * fields). Neither decision may be `unavailable`; the caller counts those apart.
 */
export function decisionChange(was: Decision, is: Decision): DecisionChange | undefined {
  if (was.allow !== is.allow) return is.allow ? 'widened' : 'narrowed';
  if (!is.allow) return undefined;
  return combined(attributesChange(was.attributes, is.attributes), listChange(was.list, is.list));
}

function attributesChange(was: readonly string[], is: readonly string[]): DecisionChange | undefined {
  // Decision lists are interned (interned-lists.ts): the same grant gives the same array.
  if (was === is || sameSpelling(was, is)) return undefined;
  const wider = !includesAttributes(was, is);
  const narrower = !includesAttributes(is, was);
  return wider && narrower ? 'changed' : wider ? 'widened' : narrower ? 'narrowed' : undefined;
}

/** Rows: `all` holds every `some`; two `some` plans are compared as sets of conditions, spelled canonically. */
function listChange(was: ListPlan | undefined, is: ListPlan | undefined): DecisionChange | undefined {
  if (was === undefined || is === undefined || was === is) return undefined;
  const rows = rowsChange(was, is);
  return combined(rows, attributesChange(was.attributes, is.attributes));
}

function rowsChange(was: ListPlan, is: ListPlan): DecisionChange | undefined {
  if (was.kind !== is.kind) {
    const rank = { none: 0, some: 1, all: 2 } as const;
    return rank[is.kind] > rank[was.kind] ? 'widened' : 'narrowed';
  }
  if (was.kind !== 'some') return undefined;
  const before = new Set(was.anyOf.map(conditionKey));
  const after = new Set(is.anyOf.map(conditionKey));
  const gained = [...after].some((key) => !before.has(key));
  const lost = [...before].some((key) => !after.has(key));
  return gained && lost ? 'changed' : gained ? 'widened' : lost ? 'narrowed' : undefined;
}

function combined(a: DecisionChange | undefined, b: DecisionChange | undefined): DecisionChange | undefined {
  if (a === undefined) return b;
  if (b === undefined || a === b) return a;
  return 'changed';
}

function sameSpelling(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((glob, index) => glob === b[index]);
}

/** A condition as text that does not depend on the order of its fields or values. */
function conditionKey(condition: ListCondition): string {
  return JSON.stringify(
    Object.keys(condition)
      .sort()
      .map((field) => [field, condition[field]!.map((value) => `${typeof value}:${String(value)}`).sort()]),
  );
}

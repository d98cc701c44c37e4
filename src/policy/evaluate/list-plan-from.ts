import { numberValue } from '../request/canonical-number';
import { paramKey, type ListSpec, type ParamSpec } from '../compile/data-document';
import { isPlainObject } from '../compile/documents/plain-object';
import type { Decision, PolicyInput } from './evaluator';
import type { ListCondition, ListPlan, ListValue } from './list-plan';
import { deepFreeze } from './lru-cache';
import { isStringList } from './string-list';

/**
 * The policy's `list` (from the `plan` rule) as a ListPlan when it has exactly the documented
 * shape for this list operation, else undefined (the caller denies). Its values, canonical text as
 * the policy compares them, are typed by the item parameter's schema on the way out.
 *
 * A plan must also be one the per-item decisions could give for this input, whoever computed it (a
 * remote OPA may run another policy): `all` only beside `any`, `some` only beside `own`, the
 * decision's attributes, and values the input's claims hold for their parameter, never more.
 */
export function listPlanFrom(value: unknown, spec: ListSpec, decision: Pick<Decision, 'allow' | 'possession' | 'attributes'>, claims: NonNullable<PolicyInput['claims']>): ListPlan | undefined {
  if (!isPlainObject(value) || !isStringList(value.attributes) || !Array.isArray(value.anyOf)) return undefined;
  const { anyOf, attributes } = value;
  // A plan that does not agree with the decision beside it is no plan: the answer and the rows must come from one judgement.
  const kind = !decision.allow ? 'none' : decision.possession === 'any' ? 'all' : decision.possession === 'own' ? 'some' : undefined;
  if (kind === undefined || value.kind !== kind || (kind === 'some') !== anyOf.length > 0) return undefined;
  if (kind === 'none' && attributes.length > 0) return undefined;
  if (attributes.length !== decision.attributes.length || attributes.some((attribute, index) => attribute !== decision.attributes[index])) return undefined;
  const owned = ownedOf(spec);
  const conditions: ListCondition[] = [];
  for (const entry of anyOf) {
    const condition = conditionFrom(entry, owned, claims);
    if (condition === undefined) return undefined;
    conditions.push(condition);
  }
  // Frozen through and through: the plan goes to the handler (req.auth.list) and, from a decision cache, to every later
  // request with the same input, so no handler may change it for another; and frozen whether cached or not, so a
  // handler that tries fails the same way in both cases.
  return deepFreeze<ListPlan>({ kind, anyOf: conditions, attributes });
}

interface OwnedParam {
  name: string;
  key: string;
  param: ParamSpec;
}

const remembered = new WeakMap<ListSpec, readonly OwnedParam[]>();

/** The item's owned parameters with their input keys, worked out once per list operation (every uncached plan reads them). */
function ownedOf(spec: ListSpec): readonly OwnedParam[] {
  let owned = remembered.get(spec);
  if (owned === undefined) {
    owned = Object.values(spec.params).map((param) => ({ name: param.name, key: paramKey(param), param }));
    remembered.set(spec, owned);
  }
  return owned;
}

/** The values an input's claims hold for one owned parameter (only strings count: the policy compares no other). */
function claimed(claims: NonNullable<PolicyInput['claims']>, key: string): readonly unknown[] {
  const values: unknown = Object.hasOwn(claims, key) ? claims[key] : undefined;
  return Array.isArray(values) ? values : [];
}

/** One entry of anyOf: every owned parameter of the item, each with at least one value the claims hold. */
function conditionFrom(entry: unknown, owned: readonly OwnedParam[], claims: NonNullable<PolicyInput['claims']>): ListCondition | undefined {
  if (!isPlainObject(entry) || owned.length === 0 || Object.keys(entry).length !== owned.length) return undefined;
  const entries: [string, ListValue[]][] = [];
  for (const { name, key, param } of owned) {
    const values = Object.hasOwn(entry, name) ? entry[name] : undefined;
    if (!isStringList(values) || values.length === 0 || !heldBy(values, claimed(claims, key))) return undefined;
    const typed: ListValue[] = [];
    // The policy gives a set, in no order (OPA's Wasm sort is quadratic): sorted here, in code-unit order, so a plan reads the same every time.
    for (const text of [...values].sort()) {
      const value = typedValue(text, param);
      if (value === undefined) return undefined;
      typed.push(value);
    }
    entries.push([name, typed]);
  }
  // fromEntries defines each key, so that a parameter named __proto__ stays a condition.
  return Object.fromEntries(entries);
}

/** Whether every value is among the claimed strings; a set only for long lists, where a scan per value would be quadratic. */
function heldBy(values: readonly string[], held: readonly unknown[]): boolean {
  if (held.length <= 16) return values.every((value) => held.includes(value));
  const set = new Set(held);
  return values.every((value) => set.has(value));
}

/** A canonical value (serialize-param.ts) as the parameter's schema types it. */
function typedValue(text: string, param: ParamSpec): ListValue | undefined {
  switch (param.type) {
    case 'integer':
    case 'number':
      return numberValue(text);
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    default:
      return text;
  }
}

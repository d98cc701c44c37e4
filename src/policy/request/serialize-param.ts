import { canonicalInteger, canonicalNumber } from './canonical-number';
import type { ParamSpec, SchemaType } from '../compile/data-document';

/**
 * Ownership compares canonical strings: both the request value and the claim are read under the
 * parameter's OpenAPI style, explode and schema type, then printed one way (`002` -> `2`).
 */

/**
 * The longest text read for ownership: a request value (before it is split into elements), a
 * string claim or a string body property. Longer is invalid (never owned) before it is parsed, so
 * the cost of reading client input stays small whatever its size (SPEC 7.3).
 */
const MAX_VALUE_LENGTH = 1024;

/** Canonical elements of a request value; null marks an element invalid for its type (never owned). [] when absent. */
export function serializeRequestValue(param: ParamSpec, raw: string | readonly string[] | undefined): (string | null)[] {
  if (raw === undefined) return [];
  const values = typeof raw === 'string' ? [raw] : [...raw];
  if (values.length === 0) return [];
  const limit = MAX_VALUE_LENGTH + stylePrefix(param).length;
  if (values.some((value) => value.length > limit)) return [null];
  if (param.type === 'object' || param.style === 'deepObject') return [null];

  const elements = param.type === 'array' ? splitArray(param, values) : readScalar(param, values);
  const itemType = param.type === 'array' ? param.items : param.type;
  return elements.map((element) => (element === null ? null : canonical(itemType, element)));
}

/** Canonical elements of a JSON body property: a value or a list of values; null marks an invalid element. */
export function serializeBodyValue(param: ParamSpec, value: unknown): (string | null)[] {
  if (value === undefined) return [];
  const itemType = param.type === 'array' ? param.items : param.type;
  if (param.type === 'array' && !Array.isArray(value)) return [null];
  const values = param.type === 'array' ? (value as unknown[]) : [value];
  return values.map((element) => {
    const text = claimText(element, itemType);
    return text === null ? null : canonical(itemType, text);
  });
}

/** Canonical values of a claim (one value or a list) under the parameter's type; unreadable values are dropped. */
export function serializeClaimValue(param: ParamSpec, claim: unknown): string[] {
  const itemType = param.type === 'array' ? param.items : param.type;
  const values = Array.isArray(claim) ? claim : [claim];
  const result = new Set<string>();
  for (const value of values) {
    const text = claimText(value, itemType);
    const normalized = text === null ? null : canonical(itemType, text);
    if (normalized !== null) result.add(normalized);
  }
  return [...result];
}

function claimText(value: unknown, type: SchemaType | null): string | null {
  if (typeof value === 'string') return value.length > MAX_VALUE_LENGTH ? null : value;
  if (typeof value === 'number') return carriedExactly(value) ? String(value) : null;
  if (typeof value === 'boolean') return type === 'boolean' || type === 'string' || type === 'unknown' || type === null ? String(value) : null;
  return null;
}

/**
 * An integer beyond 2^53 written as a JSON number arrived rounded to a neighbouring double: which
 * integer was written is lost, so it owns nothing and is owned by nothing (SPEC 7.4). Written as a
 * string it stays exact.
 */
function carriedExactly(value: number): boolean {
  return Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value));
}

/**
 * What a path value's style writes before the value (`.` label, `;id=` matrix). The length limit is the
 * value's, as a claim's is: a claim of 1,024 characters owns `/codes/.<those 1,024>`, and a list plan that
 * holds it lists only items whose request can be read.
 */
function stylePrefix(param: ParamSpec): string {
  if (param.style === 'label') return '.';
  return param.style === 'matrix' ? `;${param.name}=` : '';
}

/** A scalar is one element: the whole value after its style's prefix. */
function readScalar(param: ParamSpec, values: string[]): (string | null)[] {
  if (values.length !== 1) return [null];
  const value = values[0]!;
  const prefix = stylePrefix(param);
  return [value.startsWith(prefix) ? value.slice(prefix.length) : null];
}

function splitArray(param: ParamSpec, values: string[]): (string | null)[] {
  switch (param.style) {
    case 'simple':
      return values.length === 1 ? splitList(values[0]!, ',') : [null];
    case 'label':
      return values.length === 1 ? splitLabel(values[0]!, param.explode) : [null];
    case 'matrix':
      return values.length === 1 ? splitMatrix(values[0]!, param.name, param.explode) : [null];
    case 'form':
      // explode: one value per repetition (?id=3&id=4); otherwise one comma-separated value.
      return param.explode ? values : values.length === 1 ? splitList(values[0]!, ',') : [null];
    case 'spaceDelimited':
      return values.length === 1 ? splitList(values[0]!, ' ') : [null];
    case 'pipeDelimited':
      return values.length === 1 ? splitList(values[0]!, '|') : [null];
    default:
      return [null];
  }
}

function splitList(value: string, separator: string): string[] {
  return value === '' ? [] : value.split(separator);
}

/** `.3,4` (explode false) or `.3.4` (explode true). */
function splitLabel(value: string, explode: boolean): (string | null)[] {
  if (!value.startsWith('.')) return [null];
  return splitList(value.slice(1), explode ? '.' : ',');
}

/** `;id=3,4` (explode false) or `;id=3;id=4` (explode true). */
function splitMatrix(value: string, name: string, explode: boolean): (string | null)[] {
  if (!explode) {
    const inner = stripMatrix(value, name);
    return inner === null ? [null] : splitList(inner, ',');
  }
  if (!value.startsWith(';')) return [null];
  return value
    .slice(1)
    .split(';')
    .map((part) => stripMatrix(`;${part}`, name));
}

/** `;id=3` -> `3`; a prefix naming another parameter reads as invalid. */
function stripMatrix(value: string, name: string): string | null {
  const prefix = `;${name}=`;
  return value.startsWith(prefix) ? value.slice(prefix.length) : null;
}

function canonical(type: SchemaType | null, value: string): string | null {
  switch (type) {
    case 'integer':
      return canonicalInteger(value);
    case 'number':
      return canonicalNumber(value);
    case 'boolean':
      return value === 'true' || value === 'false' ? value : null;
    case 'array':
    case 'object':
      return null;
    default:
      return value;
  }
}

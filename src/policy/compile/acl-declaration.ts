import { z } from 'zod';
import { quoted } from './quoted-text';
import { ConfigError, jsonPath } from './config-error';
import { ACTIONS, POSSESSIONS, type Action, type Possession } from './data-document';
import { isPlainObject } from './documents/load-document';
import { parseWith } from './parse-with';

/** A declaration's `<action>:<possession>` key. */
export type GrantKey = `${Action}:${Possession}`;
/** Each action's grant keys, written once here rather than for every role and operation. */
export const GRANT_KEYS = Object.fromEntries(ACTIONS.map((action) => [action, Object.fromEntries(POSSESSIONS.map((possession) => [possession, `${action}:${possession}`]))])) as Readonly<
  Record<Action, Readonly<Record<Possession, GrantKey>>>
>;
/** Every grant key: a set lookup per grant, where a regular expression cost a large ACL's compile 2%. */
const VALID_GRANT_KEYS: ReadonlySet<string> = new Set(Object.values(GRANT_KEYS).flatMap((keys) => Object.values(keys)));
const EXTEND = '$extend';
const DECLARATION_FIX = 'write { "<role>": { "<resource path>": { "read:own": ["*"] } } }';

/**
 * Role names are JSON keys, so the names of Object.prototype's members (`constructor`, `toString`,
 * `hasOwnProperty`, ...) are roles like any other and are honoured exactly: the policy reads roles
 * from JSON data, which has no prototypes, and the compiler looks roles up as own properties only.
 * `__proto__` alone is refused: written in a JavaScript object literal it sets the prototype instead
 * of declaring a role, zod strips it, and any plain assignment replaces a prototype with it, so no
 * path from a declaration to the policy could carry it safely.
 */
const UNSAFE_ROLE = '__proto__';

// Objects are checked for being objects only, not walked: their entries are validated one by one
// below, with their own paths, and a large declaration is walked once instead of twice. Plain ones
// only: `{ __proto__: {...} }` in an object literal sets the prototype, and what it holds would be
// silently missing.
const objectOf = (error: string) =>
  z.custom<Record<string, unknown>>(isPlainObject, {
    error: (issue) => (typeof issue.input === 'object' && issue.input !== null && !Array.isArray(issue.input) ? `${error}, with no prototype of its own (a "__proto__" key in an object literal sets the prototype)` : error),
  });
const declarationSchema = objectOf('a permission declaration must be an object of roles');
const roleSchema = objectOf('a role must be an object of resource paths');
const extendSchema = z.array(z.string(), { error: `${EXTEND} must be a list of role names` });
const grantsSchema = objectOf('grants must be an object of "<action>:<possession>" keys');
const attributesSchema = z.array(z.string(), { error: 'attributes must be a list of strings' });

/** `<action>:<possession>` -> attribute globs, as declared for one resource. */
export type ResourceGrants = Partial<Record<GrantKey, string[]>>;

export interface DeclaredRole {
  /** Resource path -> grants; a Map, since a role of a large ACL names a thousand paths. */
  grants: Map<string, ResourceGrants>;
}

export interface DeclaredRoles {
  roles: Record<string, DeclaredRole>;
  /** role -> the roles it extends. */
  extends: Record<string, string[]>;
}

/**
 * Validates a permission declaration `{ role: { resource: { "action:possession": [attributes] } } }`
 * against the resource paths of the document and returns the roles as declared.
 */
export function readRoles(declaration: unknown, file: string, resources: ReadonlySet<string>): DeclaredRoles {
  const declared = parseWith(declarationSchema, declaration, file, [], DECLARATION_FIX);
  const result: DeclaredRoles = { roles: {}, extends: {} };
  // Every role names the same resources in the same spellings: each spelling is resolved once.
  const resolved = new Map<string, string>();
  for (const role of Object.keys(declared)) {
    checkRoleName(role, file, [role]);
    const body = parseWith(roleSchema, declared[role], file, [role], DECLARATION_FIX);
    const spec: DeclaredRole = { grants: new Map() };
    result.extends[role] = [];
    for (const key of Object.keys(body)) {
      const value = body[key];
      if (key === EXTEND) {
        result.extends[role] = readExtends(value, file, [role, key]);
        continue;
      }
      let resource = resolved.get(key);
      if (resource === undefined) {
        resource = resolveResource(key, resources, file, [role, key]);
        resolved.set(key, resource);
      }
      if (spec.grants.has(resource)) {
        throw new ConfigError(file, jsonPath([role, key]), `the resource ${resource} is declared twice for role ${role}`, 'merge the two entries into one');
      }
      spec.grants.set(resource, readGrants(value, file, role, key));
    }
    result.roles[role] = spec;
  }
  checkExtends(result.extends, file);
  return result;
}

function checkRoleName(name: string, file: string, at: readonly (string | number)[]): void {
  if (name === '') throw new ConfigError(file, jsonPath(at), 'a role name must not be empty', 'name the role');
  if (name === UNSAFE_ROLE) {
    throw new ConfigError(file, jsonPath(at), `${UNSAFE_ROLE} cannot be a role name`, `rename the role, in the declaration, in every ${EXTEND} and in the tokens' role claims`);
  }
}

function readExtends(value: unknown, file: string, at: readonly string[]): string[] {
  const parents = parseWith(extendSchema, value, file, at, `write "${EXTEND}": ["otherRole"]`);
  parents.forEach((parent, index) => checkRoleName(parent, file, [...at, index]));
  return parents;
}

/** Accepts `/users/{id}`, `users/{id}` and `/users/:id`; the result must be a path of the document. */
/** A resource key as the document writes paths: `users/:id` and `/users/{id}` are the same resource. */
export function resourceKey(key: string): string {
  const withSlash = key.startsWith('/') ? key : `/${key}`;
  return withSlash.includes(':') ? withSlash.replace(/:([A-Za-z0-9_.~-]+)/g, '{$1}') : withSlash;
}

function resolveResource(key: string, resources: ReadonlySet<string>, file: string, at: readonly string[]): string {
  const normalized = resourceKey(key);
  if (resources.has(normalized)) return normalized;
  if (/^\$?extends?$/i.test(key)) {
    throw new ConfigError(file, jsonPath(at), `${key} is neither a path of the OpenAPI document nor ${EXTEND}`, `write "${EXTEND}": ["otherRole"] to inherit another role's grants`);
  }
  const shape = (path: string) => path.replace(/\{[^}]*\}/g, '{}');
  const similar = [...resources].filter((path) => shape(path) === shape(normalized));
  throw new ConfigError(
    file,
    jsonPath(at),
    `${key} is not a path of the OpenAPI document`,
    similar.length > 0 ? `did you mean ${similar.join(' or ')}? Parameter names must match the document` : `use one of the document's paths: ${[...resources].join(', ') || '(none)'}`,
  );
}

/**
 * The declared object itself once it is valid: a million grants are checked, not copied (the
 * compiler copies each distinct grant set it keeps). zod reads only what is invalid, to word the error.
 */
function readGrants(value: unknown, file: string, role: string, declaredKey: string): ResourceGrants {
  const grants = isPlainObject(value) ? value : parseWith(grantsSchema, value, file, [role, declaredKey], 'map "<action>:<possession>" keys to attribute lists, e.g. { "read:own": ["*"] }');
  for (const key of Object.keys(grants)) {
    if (!VALID_GRANT_KEYS.has(key)) throw grantKeyError(key, file, [role, declaredKey, key]);
    if (!isStringList(grants[key])) parseWith(attributesSchema, grants[key], file, [role, declaredKey, key], 'write a list such as ["*"] or ["*", "!password"]; [] grants nothing');
  }
  return grants as ResourceGrants;
}

function isStringList(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  // Indexed, not `every`: `every` skips the holes of a sparse array, which zod refuses.
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return false;
  return true;
}

function grantKeyError(key: string, file: string, at: readonly string[]): ConfigError {
  const [action, possession, ...rest] = key.split(':');
  let problem = `${quoted(key)} is not "<action>:<possession>"`;
  if (rest.length === 0 && action !== undefined && !(ACTIONS as readonly string[]).includes(action)) problem = `unknown action ${quoted(action)}`;
  else if (rest.length === 0 && possession !== undefined && !(POSSESSIONS as readonly string[]).includes(possession)) problem = `unknown possession ${quoted(possession)}`;
  return new ConfigError(file, jsonPath(at), problem, `actions are ${ACTIONS.join(', ')}; possessions are ${POSSESSIONS.join(', ')}; e.g. "read:own"`);
}

/**
 * Every `$extend` names a declared role, and no chain of them comes back to where it started.
 * Declared means an own key: `constructor` is not declared just because every object has one.
 */
function checkExtends(graph: Record<string, string[]>, file: string): void {
  for (const [role, parents] of Object.entries(graph)) {
    parents.forEach((parent, index) => {
      if (!Object.hasOwn(graph, parent)) {
        throw new ConfigError(file, jsonPath([role, EXTEND, index]), `role ${role} extends ${parent}, which is not declared`, `declare ${parent} or remove it from ${EXTEND}`);
      }
    });
  }
  const done = new Set<string>();
  const visit = (role: string, trail: string[]): void => {
    if (trail.includes(role)) {
      const cycle = [...trail.slice(trail.indexOf(role)), role];
      throw new ConfigError(file, jsonPath([cycle[0]!, EXTEND]), `cyclic ${EXTEND}: ${cycle.join(' -> ')}`, `remove one of the ${EXTEND} links so that no role inherits from itself`);
    }
    if (done.has(role)) return;
    for (const parent of graph[role]!) visit(parent, [...trail, role]);
    done.add(role);
  };
  for (const role of Object.keys(graph)) visit(role, []);
}

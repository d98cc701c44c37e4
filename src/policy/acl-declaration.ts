import { z } from 'zod';
import { ConfigError, jsonPath } from './config-error';
import { ACTIONS, POSSESSIONS, type Action, type Possession } from './data-document';
import { parseWith } from './parse-with';

const GRANT_KEY = new RegExp(`^(${ACTIONS.join('|')}):(${POSSESSIONS.join('|')})$`);
const EXTEND = '$extend';

// Objects are checked for being objects only, not walked: their entries are validated one by one
// below, with their own paths, and a large declaration is walked once instead of twice.
const objectOf = (error: string) => z.custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), { error });
const declarationSchema = z.record(z.string().min(1, { error: 'a role name must not be empty' }), objectOf('a role must be an object of resource paths'));
const extendSchema = z.array(z.string().min(1), { error: `${EXTEND} must be a list of role names` });
const grantsSchema = objectOf('grants must be an object of "<action>:<possession>" keys');
const attributesSchema = z.array(z.string(), { error: 'attributes must be a list of strings' });

/** `<action>:<possession>` -> attribute globs, as declared for one resource. */
export type ResourceGrants = Partial<Record<`${Action}:${Possession}`, string[]>>;

export interface DeclaredRole {
  /** Resource path -> grants. */
  grants: Record<string, ResourceGrants>;
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
  const declared = parseWith(declarationSchema, declaration, file, [], 'write { "<role>": { "<resource path>": { "read:own": ["*"] } } }');
  const result: DeclaredRoles = { roles: {}, extends: {} };
  for (const [role, body] of Object.entries(declared)) {
    const spec: DeclaredRole = { grants: {} };
    result.extends[role] = [];
    for (const key of Object.keys(body)) {
      const value = body[key];
      if (key === EXTEND) {
        result.extends[role] = parseWith(extendSchema, value, file, [role, key], `write "${EXTEND}": ["otherRole"]`);
        continue;
      }
      const resource = resolveResource(key, resources, file, [role, key]);
      if (resource in spec.grants) {
        throw new ConfigError(file, jsonPath([role, key]), `the resource ${resource} is declared twice for role ${role}`, 'merge the two entries into one');
      }
      spec.grants[resource] = readGrants(value, file, [role, key]);
    }
    result.roles[role] = spec;
  }
  checkExtends(result.extends, file);
  return result;
}

/** Accepts `/users/{id}`, `users/{id}` and `/users/:id`; the result must be a path of the document. */
function resolveResource(key: string, resources: ReadonlySet<string>, file: string, at: readonly string[]): string {
  const withSlash = key.startsWith('/') ? key : `/${key}`;
  const normalized = withSlash.includes(':') ? withSlash.replace(/:([A-Za-z0-9_.~-]+)/g, '{$1}') : withSlash;
  if (resources.has(normalized)) return normalized;
  const shape = (path: string) => path.replace(/\{[^}]*\}/g, '{}');
  const similar = [...resources].filter((path) => shape(path) === shape(normalized));
  throw new ConfigError(
    file,
    jsonPath(at),
    `${key} is not a path of the OpenAPI document`,
    similar.length > 0 ? `did you mean ${similar.join(' or ')}? Parameter names must match the document` : `use one of the document's paths: ${[...resources].join(', ') || '(none)'}`,
  );
}

function readGrants(value: unknown, file: string, at: readonly string[]): ResourceGrants {
  const grants = parseWith(grantsSchema, value, file, at, 'map "<action>:<possession>" keys to attribute lists, e.g. { "read:own": ["*"] }');
  const result: ResourceGrants = {};
  for (const key of Object.keys(grants)) {
    const attributes = grants[key];
    if (!GRANT_KEY.test(key)) throw grantKeyError(key, file, [...at, key]);
    result[key as keyof ResourceGrants] = parseWith(attributesSchema, attributes, file, [...at, key], 'write a list such as ["*"] or ["*", "!password"]; [] grants nothing');
  }
  return result;
}

function grantKeyError(key: string, file: string, at: readonly string[]): ConfigError {
  const [action, possession, ...rest] = key.split(':');
  let problem = `${JSON.stringify(key)} is not "<action>:<possession>"`;
  if (rest.length === 0 && action !== undefined && !(ACTIONS as readonly string[]).includes(action)) problem = `unknown action ${JSON.stringify(action)}`;
  else if (rest.length === 0 && possession !== undefined && !(POSSESSIONS as readonly string[]).includes(possession)) problem = `unknown possession ${JSON.stringify(possession)}`;
  return new ConfigError(file, jsonPath(at), problem, `actions are ${ACTIONS.join(', ')}; possessions are ${POSSESSIONS.join(', ')}; e.g. "read:own"`);
}

/** Every `$extend` names a declared role, and no chain of them comes back to where it started. */
function checkExtends(graph: Record<string, string[]>, file: string): void {
  for (const [role, parents] of Object.entries(graph)) {
    parents.forEach((parent, index) => {
      if (!(parent in graph)) {
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

/**
 * The Rego data document the compiler writes and the policy reads as `data.svcgate`.
 * It is plain JSON on purpose: users audit it and query it with `opa eval`.
 * The README's "Data document" section describes the same schema; change both together.
 */

export const DATA_SCHEMA_VERSION = 1 as const;

export type Action = 'create' | 'read' | 'update' | 'delete';
export type Possession = 'any' | 'own';
/** `body`: a property of a JSON request body that carries `x-acl-binding`. */
export type ParamLocation = 'path' | 'query' | 'header' | 'cookie' | 'body';
export type ParamStyle = 'simple' | 'label' | 'matrix' | 'form' | 'spaceDelimited' | 'pipeDelimited' | 'deepObject';
export type SchemaType = 'integer' | 'number' | 'boolean' | 'string' | 'array' | 'object' | 'unknown';

/** How one OpenAPI parameter is read from a request and compared with a claim. */
export interface ParamSpec {
  name: string;
  in: ParamLocation;
  style: ParamStyle;
  explode: boolean;
  /** The schema type; `unknown` when the schema does not say (compared as a string). */
  type: SchemaType;
  /** The item type when `type` is `array`, else null. */
  items: SchemaType | null;
  /** The claim that holds the owned values: `x-acl-binding`, else the parameter name. */
  binding: string;
  /** True when `<action>:own` requires the caller to own this parameter (path or bound). */
  owned: boolean;
}

export interface OperationSpec {
  method: string;
  /** The path as written under `paths`, without the server prefix. */
  path: string;
  operation_id: string | null;
  /** The ACL resource this operation belongs to: its path. */
  resource: string;
  action: Action;
  /** True when the operation's security requirements include the guarded bearer scheme. */
  secured: boolean;
  /** Keyed by `<in>:<name>`, the pair that identifies a parameter in OpenAPI. */
  params: Record<string, ParamSpec>;
}

/** `<action>:<possession>` -> attribute globs. */
export type ResourceGrants = Partial<Record<`${Action}:${Possession}`, string[]>>;

export interface RoleSpec {
  /** Resource path -> grants. */
  grants: Record<string, ResourceGrants>;
}

export interface DataDocument {
  schema_version: typeof DATA_SCHEMA_VERSION;
  /** A hash of everything below; decision logs and caches use it to tell data versions apart. */
  revision: string;
  /** The security scheme this document guards. */
  scheme: string;
  /** True when the ACL does not declare `anonymous`, so the built-in anonymous grant applies. */
  anonymous_default: boolean;
  roles: Record<string, RoleSpec>;
  /**
   * `$extend`, as a graph: role -> the roles whose grants it also holds. The policy follows it
   * transitively with graph.reachable, which walks only what the caller's roles reach.
   */
  extends: Record<string, string[]>;
  /** Keyed by `<METHOD> <path>`, e.g. `GET /users/{userId}`. */
  operations: Record<string, OperationSpec>;
}

/** Key of an operation in `operations`. */
export function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

/** Key of a parameter in `OperationSpec.params` and in the policy input. */
export function paramKey(param: Pick<ParamSpec, 'in' | 'name'>): string {
  return `${param.in}:${param.name}`;
}

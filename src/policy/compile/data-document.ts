/**
 * The Rego data document the compiler writes and the policy reads as `data.svcgate`.
 * It is plain JSON on purpose: users audit it and query it with `opa eval`.
 * docs/policy.md, "The data document", describes the same schema; change both together.
 */

export const DATA_SCHEMA_VERSION = 6 as const;

export type Action = 'create' | 'read' | 'update' | 'delete';
export type Possession = 'any' | 'own';
export const ACTIONS: readonly Action[] = ['create', 'read', 'update', 'delete'];
export const POSSESSIONS: readonly Possession[] = ['any', 'own'];
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
  /** The claim path (see claim-path.ts) of the owned values: `x-acl-binding`, else the parameter name. */
  binding: string;
  /** True when `<action>:own` requires the caller to own this parameter (path or bound). */
  owned: boolean;
}

/** Possession -> the attribute globs (accesscontrol notation) it grants; never a list that grants nothing (empty, or negations only). */
export type OperationGrants = Partial<Record<Possession, string[]>>;

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
  /**
   * The scopes the token needs, as alternatives (any one met is enough): one per security
   * requirement with the guarded scheme, its scopes for that scheme plus the adapter's required
   * scopes, sorted. Empty when no scope is needed (and always on unsecured operations).
   */
  scopes: string[][];
  /**
   * This operation's row of the grant table (see GrantTable): for each role, what it may do here,
   * its own grants for this resource and action and those of every role it extends, transitively,
   * worked out by the compiler so that the policy looks them up instead of walking `$extend` per
   * request. The built-in `anonymous` grant is included; every cell is empty when the operation is
   * not secured.
   */
  grants: string;
  /**
   * Key of each owned parameter (as in `params`) -> the reason a deny gives when the caller does not
   * own it, e.g. `read:own needs ownership of path parameter userId`. Written here so that the
   * policy does not build the message on every denied request.
   */
  unowned_reasons: Record<string, string>;
  /**
   * Set on a list operation (`x-acl-list`): the item operation it lists and the item's owned
   * parameters. The operation's `resource`, `action`, `grants` and `scopes` are then the item's
   * (scopes: the token must meet both operations' requirements), and the policy's `plan` rule
   * answers which items the caller may see (SPEC 11).
   */
  list?: ListSpec;
}

/** What a list operation lists: see OperationSpec.list. */
export interface ListSpec {
  /** The item operation's key, e.g. `GET /orders/{orderId}`. */
  item: string;
  /** The item's owned parameters, keyed as in its `params`; the plan names them by `name`. */
  params: Record<string, ParamSpec>;
}

/** What the OpenAPI document says of an operation, before the ACL adds its grants; all the request side needs. */
export type OperationFacts = Omit<OperationSpec, 'grants' | 'unowned_reasons'>;

export interface RoleSpec {
  /** `$extend` as declared: the roles whose grants this one also holds. */
  extends: string[];
}

/**
 * What each role may do on each operation, as a table (grant-table.ts): an operation's `grants`
 * string is its row, `grant_width` characters per cell, one cell per column.
 */
export interface GrantTable {
  /**
   * Role -> where its cell starts in every row (its column x `grant_width`). The columns are the
   * declared roles in order, then `anonymous` when the built-in grant applies.
   */
  grant_offsets: Record<string, number>;
  /** Characters per cell: one while there are at most 91 distinct grant sets. */
  grant_width: number;
  /** Cell -> what it grants; an empty cell (dashes) grants nothing. */
  grant_sets: Record<string, OperationGrants>;
}

export interface DataDocument extends GrantTable {
  schema_version: typeof DATA_SCHEMA_VERSION;
  /** A hash of everything below; decision logs and caches use it to tell data versions apart. */
  revision: string;
  /** The security scheme this document guards. */
  scheme: string;
  /** True when the ACL does not declare `anonymous`, so the built-in anonymous grant applies. */
  anonymous_default: boolean;
  /** The declared roles. */
  roles: Record<string, RoleSpec>;
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

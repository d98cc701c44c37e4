import { resourceKey } from '../policy/compile/acl-declaration';
import type { DataDocument } from '../policy/compile/data-document';
import { isPlainObject } from '../policy/compile/documents/load-document';
import { grantsSomething } from '../policy/attributes/attribute-union';
import type { Access } from './audit-matrix';

/** An ACL as the CLI compares or shows it: the compiled data and the declaration it was compiled from. */
export interface AclVersion {
  data: DataDocument;
  declaration: unknown;
  name: string;
}

/** The declared `<action>:<possession>` that gives `role` its access: its own, or one of a role it extends. */
export function grantCause(side: AclVersion, operation: string, role: string, access: Access): string {
  const facts = side.data.operations[operation];
  if (facts === undefined || access === '-') return 'no grant';
  if (access === 'public') return 'the operation needs no token';
  const grant = `${facts.action}:${access}`;
  const seen = new Set<string>();
  const queue = [role];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const declared = declaredGrant(side.declaration, name, facts.resource, grant);
    // A list that grants nothing ([] or negations only) gives no access, so it is not the cause.
    if (Array.isArray(declared) && grantsSomething(declared)) return `${name} ${facts.resource} ${grant} ${JSON.stringify(declared)}${name === role ? '' : ` (${role} extends ${name})`}`;
    queue.push(...(side.data.roles[name]?.extends ?? []));
  }
  if (role === 'anonymous' && side.data.anonymous_default) return `the built-in anonymous default (read:any on operations without parameters; declare anonymous to turn it off)`;
  return `${grant} on ${facts.resource}`;
}

/** The attribute list `role` declares for `grant` on `resource`, as written; undefined when it declares none. */
export function declaredGrant(declaration: unknown, role: string, resource: string, grant: string): unknown {
  const grants = resourcesOf(declaration, role).get(resource);
  return grants !== undefined && Object.hasOwn(grants, grant) ? grants[grant] : undefined;
}

// Role -> resource -> its grants, read once per declaration: a diff asks about every role of each
// changed cell's $extend chain, and a resource key (`users/:id`) is parsed to compare it.
const indexes = new WeakMap<object, Map<string, Map<string, Record<string, unknown>>>>();

function resourcesOf(declaration: unknown, role: string): Map<string, Record<string, unknown>> {
  if (!isPlainObject(declaration)) return new Map();
  let index = indexes.get(declaration);
  if (index === undefined) indexes.set(declaration, (index = new Map()));
  let resources = index.get(role);
  if (resources === undefined) {
    resources = new Map();
    const body = Object.hasOwn(declaration, role) ? declaration[role] : undefined;
    if (isPlainObject(body)) {
      for (const [key, grants] of Object.entries(body)) {
        if (key.startsWith('$') || !isPlainObject(grants)) continue;
        const resource = resourceKey(key);
        // The first key of a resource, as before, when two spell one resource.
        if (!resources.has(resource)) resources.set(resource, grants);
      }
    }
    index.set(role, resources);
  }
  return resources;
}


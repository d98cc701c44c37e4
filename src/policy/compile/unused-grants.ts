import { GRANT_KEYS, type DeclaredRoles } from './acl-declaration';
import { ConfigError, jsonPath } from './config-error';
import { POSSESSIONS, type OperationFacts } from './data-document';

const UNUSED_GRANT_WARNING = 'SVCGATE_UNUSED_GRANT';

/**
 * A grant for an action that no operation of its path is (`delete:any` on a path served by GET
 * alone, `update:own` on a SvcApi route called with GET) decides nothing: a typo, or a method
 * that changed, and the caller it was meant for is denied. A warning lists them all; with
 * `strict` the start-up fails on the first.
 */
export function reportUnusedGrants(operations: Record<string, OperationFacts>, declared: DeclaredRoles, aclFile: string, strict: boolean): void {
  const served = new Map<string, Set<string>>();
  // The grant keys that some operation of the resource decides, so that each of a large ACL's grants is one lookup.
  const deciding = new Map<string, Set<string>>();
  for (const { resource, action } of Object.values(operations)) {
    served.set(resource, (served.get(resource) ?? new Set()).add(action));
    const keys = deciding.get(resource) ?? new Set();
    for (const possession of POSSESSIONS) keys.add(GRANT_KEYS[action][possession]);
    deciding.set(resource, keys);
  }
  const unused: { role: string; resource: string; grant: string }[] = [];
  for (const [role, spec] of Object.entries(declared.roles)) {
    for (const [resource, grants] of spec.grants) {
      const keys = deciding.get(resource);
      for (const grant of Object.keys(grants)) if (!keys?.has(grant)) unused.push({ role, resource, grant });
    }
  }
  if (unused.length === 0) return;
  const actions = (resource: string) => [...(served.get(resource) ?? [])].join(', ');
  const listed = unused.map(({ role, resource, grant }) => `${grant} of ${role} on ${resource} (served: ${actions(resource)})`);
  const problem = `no operation is the action of ${unused.length === 1 ? 'this grant' : 'these grants'}, so ${unused.length === 1 ? 'it decides' : 'they decide'} nothing: ${listed.join('; ')}`;
  const fix = "grant the actions the path's operations are (GET and HEAD read, POST create, PUT and PATCH update, DELETE delete), or remove the grant";
  const first = unused[0]!;
  if (strict) throw new ConfigError(aclFile, jsonPath([first.role, first.resource, first.grant]), problem, fix);
  process.emitWarning(`${aclFile}: ${problem}. To change it: ${fix}. With strict: true this is an error`, { code: UNUSED_GRANT_WARNING });
}

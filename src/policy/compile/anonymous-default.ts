import { quoted } from './quoted-text';
import { ConfigError } from './config-error';
import type { OperationFacts } from './data-document';

const ANONYMOUS_DEFAULT_WARNING = 'SVCGATE_ANONYMOUS_DEFAULT';

/**
 * What an ACL without `anonymous` grants callers without a role: `'seed'`, the built-in grant
 * below (the rule of @oas-tools/auth, kept for BearerJWT and bearerJwtAcl), or `'none'`, nothing.
 */
export type AnonymousDefault = 'seed' | 'none';

/** Where an OpenAPI document chooses the default: svcAclOpenApi writes `none` there, so a bundle built from it decides as svcAcl does. */
export const ANONYMOUS_DEFAULT_KEY = 'x-acl-anonymous-default';
/** Every choice, for the CLI's check of --anonymous-default. */
export const ANONYMOUS_DEFAULTS = ['seed', 'none'] as const satisfies readonly AnonymousDefault[];

/** The compile option when given, else the document's choice, else the seed's rule; anything else is a ConfigError. */
export function anonymousDefaultOf(option: unknown, document: Record<string, unknown>, documentFile: string): AnonymousDefault {
  const [value, file, path] = option !== undefined ? [option, '<compileAcl options>', '$.anonymousDefault'] : [document[ANONYMOUS_DEFAULT_KEY] ?? 'seed', documentFile, `$["${ANONYMOUS_DEFAULT_KEY}"]`];
  if ((ANONYMOUS_DEFAULTS as readonly unknown[]).includes(value)) return value as AnonymousDefault;
  const shown = typeof value === 'string' ? quoted(value, 40) : typeof value;
  throw new ConfigError(file, path, `the anonymous default is ${shown}`, "write 'seed' (the built-in grant) or 'none' (anonymous gets only what the ACL declares)");
}

/**
 * The built-in grant (SPEC 3.3) that applies while the ACL does not declare `anonymous`:
 * `read:any`, every attribute, on each secured operation without parameters of any kind.
 */
export function openedByAnonymousDefault(operation: OperationFacts, operations: Readonly<Record<string, OperationFacts>>): boolean {
  // A list operation lists what its item shows, so the default opens it only with its item (whose path parameter keeps it closed).
  if (operation.list !== undefined) return openedByAnonymousDefault(operations[operation.list.item]!, operations);
  return operation.secured && operation.action === 'read' && Object.keys(operation.params).length === 0;
}

/**
 * The default is the seed's rule and stays, but it opens operations without the ACL naming them
 * (a collection such as `GET /users`, with every attribute), so it is never silent: a warning
 * lists what it opens, and with `strict` the start-up fails instead.
 */
export function reportAnonymousDefault(operations: Record<string, OperationFacts>, aclFile: string, strict: boolean): void {
  const opened = Object.keys(operations).filter((key) => openedByAnonymousDefault(operations[key]!, operations));
  if (opened.length === 0) return;
  const problem = `the ACL does not declare anonymous, so the built-in default lets callers without a token (or without a role claim) read:any, every attribute, on ${opened.join(', ')}`;
  const fix = 'declare anonymous: {} to turn the default off, or declare what anonymous may do, e.g. anonymous: { "/status": { "read:any": ["*"] } }';
  if (strict) throw new ConfigError(aclFile, '$.anonymous', problem, fix);
  process.emitWarning(`${aclFile}: ${problem}. To change it: ${fix}. With strict: true (an option of compileAcl and of each adapter) this is an error`, { code: ANONYMOUS_DEFAULT_WARNING });
}

import { createHash } from 'node:crypto';
import { readRoles } from './acl-declaration';
import { anonymousDefaultOf, reportAnonymousDefault, type AnonymousDefault } from './anonymous-default';
import { findBearerScheme } from './bearer-scheme';
import { DATA_SCHEMA_VERSION, type DataDocument, type OperationFacts } from './data-document';
import { listPaths, refuseListPathReads } from './list-grants';
import { loadDocument } from './documents/load-document';
import { readOperations } from './openapi-operations';
import { withGrants } from './operation-grants';
import { parseWith } from './parse-with';
import { refRootSchema } from './documents/reference-root';
import { resolveRefs } from './documents/resolve-refs';
import { unownedReasons } from './unowned-reasons';
import { reportUnusedGrants } from './unused-grants';
import { readScopeList } from './scope-requirements';

export interface CompileAclOptions {
  /** The permission declaration: an object, or a path to a JSON or YAML file. */
  acl: unknown;
  /** Names an `acl` object in errors and warnings (default `<inline ACL>`), e.g. where it was read from. */
  aclSource?: string;
  /** The OpenAPI 3.0/3.1 document: an object, or a path to a JSON or YAML file. */
  openapi: unknown;
  /**
   * The folder that the document's file `$ref`s must stay inside (symbolic links resolved); default
   * the document's own folder, or the working directory for an object. A `$ref` that leads
   * elsewhere, or is an absolute path, is a ConfigError.
   */
  refRoot?: string;
  /** The security scheme to guard; default: the document's only bearer JWT scheme (http bearer, oauth2 or openIdConnect). */
  scheme?: string;
  /** Scopes every guarded operation needs, on top of those its security requirements list. Default: none. */
  requiredScopes?: string[];
  /**
   * An ACL that does not declare `anonymous` is a ConfigError when the built-in anonymous grant
   * would open an operation, instead of a SVCGATE_ANONYMOUS_DEFAULT warning, and so is a grant
   * for an action that no operation of its path is, instead of a SVCGATE_UNUSED_GRANT warning.
   * Default false.
   */
  strict?: boolean;
  /**
   * What an ACL that does not declare `anonymous` grants callers without a role: `'seed'`, the
   * built-in grant (read:any on every secured operation without parameters), or `'none'`, nothing
   * (as `anonymous: {}`). Default: the document's `x-acl-anonymous-default`, else `'seed'`.
   * svcAcl compiles with `'none'`.
   */
  anonymousDefault?: AnonymousDefault;
}

/**
 * Turns a permission declaration and an OpenAPI document into the Rego data document.
 * Throws ConfigError, naming the file, the JSON path and the fix, on any invalid input.
 * Warns (SVCGATE_ANONYMOUS_DEFAULT) when the built-in anonymous grant opens operations.
 */
export function compileAcl(options: CompileAclOptions): DataDocument {
  return compileApi(options).data;
}

/**
 * compileAcl, also giving the $ref-resolved OpenAPI document (adapters read its servers) and the
 * ACL declaration as read (the CLI's audit page and diff name its grants without reading it again).
 */
export function compileApi(options: CompileAclOptions): { data: DataDocument; document: Record<string, unknown>; declaration: unknown } {
  const { scheme, operations: facts, document, file } = compileOperations(options);
  const loaded = loadDocument(options.acl, 'ACL');
  const acl = typeof options.acl === 'string' || options.aclSource === undefined ? loaded : { ...loaded, file: options.aclSource };
  const declared = readRoles(acl.value, acl.file, new Set([...Object.values(facts).map((operation) => operation.resource), ...listPaths(facts)]));
  refuseListPathReads(facts, declared, acl.file);
  const declaresAnonymous = Object.hasOwn(declared.roles, 'anonymous');
  // Read even when the ACL declares anonymous, so that a wrong option or document key is never silently ignored.
  const anonymousDefault = anonymousDefaultOf(options.anonymousDefault, document, file);
  const seedGrantApplies = !declaresAnonymous && anonymousDefault === 'seed';
  if (seedGrantApplies) reportAnonymousDefault(facts, acl.file, options.strict ?? false);
  else if (!declaresAnonymous) {
    // 'none' compiles the ACL as if it declared anonymous: {}, so the data (and a bundle of it) is the same.
    declared.roles.anonymous = { grants: new Map() };
    declared.extends.anonymous = [];
  }
  reportUnusedGrants(facts, declared, acl.file, options.strict ?? false);
  const roles = Object.fromEntries(Object.entries(declared.extends).map(([role, parents]) => [role, { extends: parents }]));
  const { table, operations: granted } = withGrants(facts, declared, seedGrantApplies);
  // fromEntries defines each key, so that an operation named __proto__ stays a key.
  const operations = Object.fromEntries(Object.entries(granted).map(([key, operation]) => [key, { ...operation, unowned_reasons: unownedReasons(operation) }]));

  const content = { schema_version: DATA_SCHEMA_VERSION, scheme, anonymous_default: seedGrantApplies, roles, ...table, operations };
  const data = { ...content, revision: createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, 16) };
  return { data, document, declaration: acl.value };
}

export type CompileOperationsOptions = Pick<CompileAclOptions, 'openapi' | 'refRoot' | 'scheme' | 'requiredScopes'>;

/**
 * The operations of the document as the request side reads them, without any ACL: what an
 * adapter routes on when its decisions come from a bundle or a remote OPA.
 */
export function compileOperations(options: CompileOperationsOptions): { scheme: string; operations: Record<string, OperationFacts>; document: Record<string, unknown>; file: string } {
  const api = loadDocument(options.openapi, 'OpenAPI document');
  const refRoot = options.refRoot === undefined ? undefined : parseWith(refRootSchema, options.refRoot, '<compileAcl options>', ['refRoot'], 'name the folder, e.g. refRoot: "api"');
  const document = resolveRefs(api, { refRoot }) as Record<string, unknown>;
  const scheme = findBearerScheme(document, api.file, options.scheme);
  const requiredScopes = options.requiredScopes === undefined ? [] : readScopeList(options.requiredScopes, '<compileAcl options>', ['requiredScopes']);
  return { scheme, operations: readOperations(document, api.file, scheme, requiredScopes), document, file: api.file };
}

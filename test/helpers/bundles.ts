import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { compileAcl } from '../../src/policy/compile/compile-acl';
import type { DataDocument } from '../../src/policy/compile/data-document';
import { policyWasmPath } from '../../src/policy/evaluate/policy-wasm-path';
import { writeBundle } from '../../src/fleet/bundle/bundle-writer';

const ROOT = join(__dirname, '../..');
export const EXAMPLE_OPENAPI = join(ROOT, 'examples/users-api/openapi.yaml');
const EXAMPLE_PERMISSIONS = join(ROOT, 'examples/users-api/permissions.yaml');

/** role -> resource -> action -> attributes, as in permissions.yaml (loosely typed, for edits). */
export type Permissions = Record<string, Record<string, Record<string, unknown>>>;

/** The example API's permissions, changed by `edit` (a copy: the file is never written). */
export function examplePermissions(edit: (permissions: Permissions) => void = () => undefined): Permissions {
  const permissions = load(readFileSync(EXAMPLE_PERMISSIONS, 'utf8')) as Permissions;
  edit(permissions);
  return permissions;
}

export function exampleData(edit?: (permissions: Permissions) => void, openapi: unknown = EXAMPLE_OPENAPI): DataDocument {
  return compileAcl({ openapi, acl: examplePermissions(edit), scheme: 'bearerAuth' });
}

/** A bundle of the example API as `svcgate bundle` writes it, with the package's policy.wasm and Rego. */
export function exampleBundle(options: { revision: string; edit?: (permissions: Permissions) => void; signing?: Parameters<typeof writeBundle>[0]['signing']; openapi?: unknown; builtAt?: Date }): Promise<Buffer> {
  return writeBundle({
    data: exampleData(options.edit, options.openapi),
    wasm: readFileSync(policyWasmPath()),
    rego: { 'policies/authz.rego': readFileSync(join(ROOT, 'policies/authz.rego'), 'utf8') },
    revision: options.revision,
    signing: options.signing,
    builtAt: options.builtAt,
  });
}

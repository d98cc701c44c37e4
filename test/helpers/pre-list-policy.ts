import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPA } from './opa-server';

/**
 * policy.wasm as it was before list operations: the fixed policy without its `plan` rule, built
 * with the pinned opa, as an old bundle or an old `policy` option carries it.
 */
export function preListPolicyWasm(): Buffer {
  const out = mkdtempSync(join(tmpdir(), 'svcgate-old-wasm-'));
  const rego = readFileSync(join(__dirname, '../../policies/authz.rego'), 'utf8').replace(/# METADATA\n# title: plan\n(?:#.*\n)*?# entrypoint: true\nplan := .*\n/, '');
  writeFileSync(join(out, 'authz.rego'), rego);
  execFileSync(OPA, ['build', '-t', 'wasm', '-e', 'svcgate/authz/decision', '--capabilities', join(__dirname, '../../policies/capabilities.json'), '-o', join(out, 'bundle.tar.gz'), join(out, 'authz.rego')]);
  execFileSync('tar', ['-xzf', join(out, 'bundle.tar.gz'), '-C', out, '/policy.wasm']);
  return readFileSync(join(out, 'policy.wasm'));
}

#!/usr/bin/env bash
# Compiles policies/authz.rego to dist/policy.wasm, then writes the example data document. The capabilities file admits only builtins the
# Wasm compiler implements natively, so the module never calls back into JavaScript for a builtin.
set -euo pipefail
cd "$(dirname "$0")/.."
opa=$(bash scripts/install-opa.sh --find)

"$opa" fmt --fail -l policies/ >/dev/null || { echo "policies:build: policies/ is not 'opa fmt' clean; run 'opa fmt -w policies/'" >&2; exit 1; }
"$opa" check --strict --capabilities policies/capabilities.json policies/authz.rego

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$opa" build -t wasm -e svcgate/authz/decision -e svcgate/authz/plan --capabilities policies/capabilities.json \
  -o "$out/bundle.tar.gz" policies/authz.rego
mkdir -p dist
tar -xzPOf "$out/bundle.tar.gz" /policy.wasm >dist/policy.wasm
echo "policies:build: dist/policy.wasm ($(wc -c <dist/policy.wasm) bytes)"

# The example's data document, for reading and for `opa eval` (docs/policy.md, "Auditing with OPA").
cli=dist/cjs/cli/main.js
[ -f "$cli" ] || { echo "policies:build: $cli is missing; run 'npm run build:ts' first" >&2; exit 1; }
node "$cli" build --openapi examples/users-api/openapi.yaml --acl examples/users-api/permissions.yaml --out build/example

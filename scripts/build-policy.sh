#!/usr/bin/env bash
# Compiles policies/authz.rego to dist/policy.wasm. The capabilities file admits only builtins the
# Wasm compiler implements natively, so the module never calls back into JavaScript for a builtin.
set -euo pipefail
cd "$(dirname "$0")/.."
opa=$(bash scripts/install-opa.sh --find)

"$opa" fmt --fail -l policies/ >/dev/null || { echo "policies:build: policies/ is not 'opa fmt' clean; run 'opa fmt -w policies/'" >&2; exit 1; }
"$opa" check --strict --capabilities policies/capabilities.json policies/authz.rego

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$opa" build -t wasm -e svcgate/authz/decision --capabilities policies/capabilities.json \
  -o "$out/bundle.tar.gz" policies/authz.rego
mkdir -p dist
tar -xzPOf "$out/bundle.tar.gz" /policy.wasm >dist/policy.wasm
echo "policies:build: dist/policy.wasm ($(wc -c <dist/policy.wasm) bytes)"

#!/usr/bin/env bash
# The Rego side: formatting, strict checks (the policy against the Wasm-native capabilities), the
# unit and parity tests, and a coverage threshold.
set -euo pipefail
cd "$(dirname "$0")/.."
opa=$(bash scripts/install-opa.sh --find)
threshold=95

"$opa" fmt --fail -l policies/ >/dev/null || { echo "test-policy: run 'opa fmt -w policies/'" >&2; exit 1; }
"$opa" check --strict --capabilities policies/capabilities.json policies/authz.rego
"$opa" check --strict policies/
"$opa" test policies/
mkdir -p build
"$opa" test policies/ --coverage --threshold "$threshold" >build/rego-coverage.json || {
  echo "test-policy: Rego coverage is below ${threshold}%" >&2
  exit 1
}
node -e 'const c = require("./build/rego-coverage.json"); console.log(`Rego coverage: ${c.coverage.toFixed(1)}% (threshold '"$threshold"'%)`)'

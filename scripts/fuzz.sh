#!/usr/bin/env bash
# `make fuzz`: schemathesis (from PyPI, pinned, in .tools/fuzz-venv) against the example APIs that
# `make run` serves, with and without a valid token. Every response must be a non-5xx answer, in
# time, and JSON (or empty for 204/HEAD); scripts/check-fuzz-har.py reads every exchange to check it,
# and that each run reached the operations where guard and handler read the request in the most
# ways: an owned query parameter and several parameters in one path segment (SPEC 7).
set -euo pipefail
cd "$(dirname "$0")/.."
SCHEMATHESIS_VERSION=4.32.5
venv=.tools/fuzz-venv
out=build/fuzz
mkdir -p "$out"

if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  echo "fuzz: installing schemathesis $SCHEMATHESIS_VERSION from PyPI" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "schemathesis==$SCHEMATHESIS_VERSION"
fi

PORT=0 node examples/serve.mjs >"$out/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do grep -q get-all-accounts "$out/serve.log" && break; sleep 0.1; done
grep -q get-all-accounts "$out/serve.log" || { cat "$out/serve.log" >&2; exit 1; }

oas=$(sed -n 's/.*@oas-tools\/core + bearerJwt + BearerJWT: *//p' "$out/serve.log")
express=$(sed -n 's/.*Express + bearerJwtAcl: *//p' "$out/serve.log")
svc=$(sed -n 's/.*SvcApi + svcAcl: *//p' "$out/serve.log")
admin=$(grep -m1 "users/4" "$out/serve.log" | sed "s/.*Bearer \([^']*\)'.*/\1/")
node --input-type=module -e "import { seedApi } from './examples/svc/api.mjs'; process.stdout.write(JSON.stringify(seedApi().openapi()))" >"$out/svc-openapi.json"

# run <name> <schema> <url> <operations the run must reach, one argument each> [-- <schemathesis options>]
run() {
  local name=$1 schema=$2 url=$3 required=()
  shift 3
  while [ $# -gt 0 ] && [ "$1" != -- ]; do required+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  echo "fuzz: $name" >&2
  "$venv/bin/schemathesis" run "$schema" --url "$url" "$@" \
    --checks not_a_server_error --max-examples 20 --max-time 20 --request-timeout 5 \
    --seed 20261122 --suppress-health-check all --warnings off --no-color \
    --report har --report-har-path "$out/$name.har" >"$out/$name.log" 2>&1 || { tail -40 "$out/$name.log" >&2; return 1; }
  python3 scripts/check-fuzz-har.py "$out/$name.har" "${required[@]}"
}

users_api=("GET /transfers" "GET /users/{userId}/reports/{year}-{month}")
svc_api=("GET /api/account-service/get-account")
run oas-token examples/users-api/openapi.yaml "$oas" "${users_api[@]}" -- -H "Authorization: Bearer $admin"
run oas-anonymous examples/users-api/openapi.yaml "$oas" "${users_api[@]}"
run express-token examples/users-api/openapi.yaml "$express" "${users_api[@]}" -- -H "Authorization: Bearer $admin"
run express-anonymous examples/users-api/openapi.yaml "$express" "${users_api[@]}"
run svc-token "$out/svc-openapi.json" "${svc%/api}" "${svc_api[@]}" -- -H "Authorization: Bearer $admin"
run svc-anonymous "$out/svc-openapi.json" "${svc%/api}" "${svc_api[@]}"
echo "fuzz: every response was a non-5xx JSON answer in time"

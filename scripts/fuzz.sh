#!/usr/bin/env bash
# `make fuzz`: schemathesis (from PyPI, pinned, in .tools/fuzz-venv) against the example APIs that
# `make run` serves, with and without a valid token. Every response must be a non-5xx answer, in
# time, and JSON (or empty for 204/HEAD); scripts/check-fuzz-har.py reads every exchange to check it.
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
svc=$(sed -n 's/.*SvcApi (library B): *//p' "$out/serve.log")
admin=$(grep -m1 "users/4" "$out/serve.log" | sed "s/.*Bearer \([^']*\)'.*/\1/")
node --input-type=module -e "import { seedApi } from './examples/svc/api.mjs'; process.stdout.write(JSON.stringify(seedApi().openapi()))" >"$out/svc-openapi.json"

run() {
  local name=$1 schema=$2 url=$3
  shift 3
  echo "fuzz: $name" >&2
  "$venv/bin/schemathesis" run "$schema" --url "$url" "$@" \
    --checks not_a_server_error --max-examples 20 --max-time 20 --request-timeout 5 \
    --seed 20261122 --suppress-health-check all --warnings off --no-color \
    --report har --report-har-path "$out/$name.har" >"$out/$name.log" 2>&1 || { tail -40 "$out/$name.log" >&2; return 1; }
  python3 scripts/check-fuzz-har.py "$out/$name.har"
}

run oas-token examples/users-api/openapi.yaml "$oas" -H "Authorization: Bearer $admin"
run oas-anonymous examples/users-api/openapi.yaml "$oas"
run express-token examples/users-api/openapi.yaml "$express" -H "Authorization: Bearer $admin"
run express-anonymous examples/users-api/openapi.yaml "$express"
run svc-token "$out/svc-openapi.json" "${svc%/api}" -H "Authorization: Bearer demo"
run svc-anonymous "$out/svc-openapi.json" "${svc%/api}"
echo "fuzz: every response was a non-5xx JSON answer in time"

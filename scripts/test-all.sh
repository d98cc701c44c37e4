#!/usr/bin/env bash
# Every test suite (Rego, jest, the schemathesis fuzz runs), then one closing line with the totals.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p build

bash scripts/test-policy.sh | tee build/rego-test.log
rego_status=${PIPESTATUS[0]}
rego_passed=$(sed -n 's/^PASS: \([0-9]*\)\/.*/\1/p' build/rego-test.log)
rego_failed=$(sed -n 's/^FAIL: \([0-9]*\)\/.*/\1/p' build/rego-test.log)

# The audit page test opens a real browser.
bash scripts/install-chromium.sh >/dev/null

npx jest --ci --json --outputFile=build/jest.json
jest_status=$?
read -r jest_passed jest_failed < <(node -e 'const r = require("./build/jest.json"); console.log(r.numPassedTests, r.numFailedTests + r.numRuntimeErrorTestSuites)' 2>/dev/null || echo "0 1")

# The users API's permission suite, as a project's CI runs it: a failing case fails the build.
node dist/cjs/cli/main.js test examples/users-api/permissions.test.yaml --junit build/permission-suite.xml | tee build/permission-suite.log
suite_status=${PIPESTATUS[0]}
suite_passed=$(sed -n 's/^[0-9]* cases: \([0-9]*\) passed, .*/\1/p' build/permission-suite.log)
suite_failed=$(sed -n 's/^[0-9]* cases: [0-9]* passed, \([0-9]*\) failed.*/\1/p' build/permission-suite.log)
# A suite that could not run (exit 2) prints no counts: one failure.
[ "$suite_status" -ne 0 ] && [ "${suite_failed:-0}" -eq 0 ] && suite_failed=1

bash scripts/fuzz.sh
fuzz_status=$?
fuzz_passed=$(( fuzz_status == 0 ? 1 : 0 ))

passed=$(( ${rego_passed:-0} + jest_passed + ${suite_passed:-0} + fuzz_passed ))
failed=$(( ${rego_failed:-0} + jest_failed + ${suite_failed:-0} + 1 - fuzz_passed ))
echo "Rego: ${rego_passed:-0} passed; jest: ${jest_passed} passed; permission suite: ${suite_passed:-0} passed; fuzz (schemathesis, 6 runs): $([ $fuzz_status -eq 0 ] && echo passed || echo FAILED)"
echo "${passed} passed, ${failed} failed"
[ "$rego_status" -eq 0 ] && [ "$jest_status" -eq 0 ] && [ "$suite_status" -eq 0 ] && [ "$fuzz_status" -eq 0 ] && [ "$failed" -eq 0 ]

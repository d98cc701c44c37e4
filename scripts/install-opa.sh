#!/usr/bin/env bash
# Installs the pinned OPA from the Go module proxy when `opa` is missing or of another version.
# Prints the path of the opa binary to use as its only line on stdout, so callers need not have
# $(go env GOPATH)/bin on PATH. With --find it installs nothing and fails when OPA is missing.
set -euo pipefail
source "$(dirname "$0")/opa-version.sh"

pinned() { [ -x "$1" ] && [ "$("$1" version 2>/dev/null | sed -n 's/^Version: //p')" = "${OPA_VERSION#v}" ]; }

candidates=("$(command -v opa || true)")
command -v go >/dev/null && candidates+=("$(go env GOPATH)/bin/opa")
for candidate in "${candidates[@]}"; do
  if [ -n "$candidate" ] && pinned "$candidate"; then
    echo "$candidate"
    exit 0
  fi
done

if [ "${1:-}" = "--find" ]; then
  echo "opa ${OPA_VERSION} is not installed; run 'bash scripts/install-opa.sh' (needs Go) or 'make build'" >&2
  exit 1
fi
if ! command -v go >/dev/null; then
  echo "install-opa: Go is not installed; install Go >= 1.24 (https://go.dev/doc/install) so that OPA ${OPA_VERSION} can be built" >&2
  exit 1
fi

echo "install-opa: building OPA ${OPA_VERSION} with go install (about a minute the first time)" >&2
CGO_ENABLED=0 go install "github.com/open-policy-agent/opa@${OPA_VERSION}" >&2
echo "$(go env GOPATH)/bin/opa"

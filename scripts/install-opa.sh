#!/usr/bin/env bash
# Installs the pinned OPA from the Go module proxy when `opa` is missing or of another version.
# Prints the path of the opa binary to use on its last line, so callers need not have
# $(go env GOPATH)/bin on PATH.
set -euo pipefail
source "$(dirname "$0")/opa-version.sh"

version_of() { "$1" version 2>/dev/null | sed -n 's/^Version: /v/p'; }

for candidate in "$(command -v opa || true)" "$(command -v go >/dev/null && echo "$(go env GOPATH)/bin/opa")"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ] && [ "$(version_of "$candidate")" = "$OPA_VERSION" ]; then
    echo "$candidate"
    exit 0
  fi
done

if ! command -v go >/dev/null; then
  echo "install-opa: Go is not installed; install Go >= 1.24 (https://go.dev/doc/install) so that OPA ${OPA_VERSION} can be built" >&2
  exit 1
fi

echo "install-opa: building OPA ${OPA_VERSION} with go install (about a minute the first time)" >&2
CGO_ENABLED=0 go install "github.com/open-policy-agent/opa@${OPA_VERSION}" >&2
echo "$(go env GOPATH)/bin/opa"

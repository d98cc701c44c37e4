#!/usr/bin/env bash
# `make lint`: Regal, the Rego linter, over policies/ (settings in .regal/config.yaml).
# Regal is built from the Go module proxy like OPA. Its module is not in the checksum database
# this machine reaches, hence GONOSUMDB for that one module; its dependencies are still verified.
set -euo pipefail
cd "$(dirname "$0")/.."
REGAL_VERSION=v0.37.0
regal="$(go env GOPATH)/bin/regal"

if ! [ -x "$regal" ] || ! "$regal" version 2>/dev/null | grep -q "Go Version"; then
  echo "lint-rego: building Regal ${REGAL_VERSION} (a few minutes the first time)" >&2
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (
    cd "$work"
    go mod init regal-build >/dev/null 2>&1
    export GONOSUMDB=github.com/open-policy-agent/regal GOFLAGS=-mod=mod CGO_ENABLED=0
    go get "github.com/open-policy-agent/regal@${REGAL_VERSION}" >/dev/null 2>&1
    go build -o "$regal" github.com/open-policy-agent/regal
  )
fi
"$regal" lint policies/

#!/usr/bin/env bash
# Builds the pinned FerretDB (a MongoDB wire-protocol server; the tests run toMongo's filters on it with
# its SQLite backend) from the Go module proxy when it is missing or of another version. Prints the path
# of the ferretdb binary to use as its only line on stdout. With --find it builds nothing and fails when
# FerretDB is missing.
set -euo pipefail
source "$(dirname "$0")/ferretdb-version.sh"

# `ferretdb --version` prints `version: v1.24.2` among other lines; a binary from a plain `go install`
# panics instead (its build/version/version.txt is empty) and counts as missing.
pinned() { [ -x "$1" ] && [ "$("$1" --version 2>/dev/null | sed -n 's/^version: //p')" = "${FERRETDB_VERSION}" ]; }

# The build goes to a name of its own, so that it never replaces a ferretdb of another version.
target=
command -v go >/dev/null && target="$(go env GOPATH)/bin/ferretdb-${FERRETDB_VERSION}"
for candidate in "$target" "$(command -v ferretdb || true)"; do
  if [ -n "$candidate" ] && pinned "$candidate"; then
    echo "$candidate"
    exit 0
  fi
done

if [ "${1:-}" = "--find" ]; then
  echo "ferretdb ${FERRETDB_VERSION} is not installed; run 'bash scripts/install-ferretdb.sh' (needs Go) or 'make build'" >&2
  exit 1
fi
if [ -z "$target" ]; then
  echo "install-ferretdb: Go is not installed; install Go >= 1.24 (https://go.dev/doc/install) so that FerretDB ${FERRETDB_VERSION} can be built" >&2
  exit 1
fi

echo "install-ferretdb: building FerretDB ${FERRETDB_VERSION} (about 20 s with the Go modules cached, 2 min without)" >&2
# `go install github.com/FerretDB/FerretDB/cmd/ferretdb@...` builds a binary that panics at start: the
# module ships build/version/version.txt empty (FerretDB's own build writes it from git). So the module is
# copied, the file written, and the command built from the copy.
work=$(mktemp -d)
trap 'chmod -R u+w "$work" && rm -rf "$work"' EXIT
module=$(GOWORK=off go mod download -json "github.com/FerretDB/FerretDB@${FERRETDB_VERSION}" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
if [ -z "$module" ]; then
  echo "install-ferretdb: go mod download did not give the module's directory" >&2
  exit 1
fi
cp -r "$module" "$work/src"
chmod -R u+w "$work/src"
echo "${FERRETDB_VERSION}" > "$work/src/build/version/version.txt"
mkdir -p "$(dirname "$target")"
(cd "$work/src" && CGO_ENABLED=0 GOWORK=off GOFLAGS=-buildvcs=false go build -o "$work/ferretdb" ./cmd/ferretdb) >&2
if ! pinned "$work/ferretdb"; then
  echo "install-ferretdb: the binary built does not report version ${FERRETDB_VERSION}" >&2
  exit 1
fi
# Moved into place whole: a concurrent run finds either no binary or a complete one.
mv "$work/ferretdb" "$target.$$" && mv "$target.$$" "$target"
echo "$target"

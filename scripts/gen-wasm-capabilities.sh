#!/usr/bin/env bash
# Regenerates policies/capabilities.json: the capabilities of the pinned OPA with its builtins cut
# down to those the Wasm compiler implements natively. With it, `opa check` and `opa build` refuse a
# policy that would need a builtin from the JavaScript host at request time.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/opa-version.sh

mod="$(go env GOMODCACHE)/github.com/open-policy-agent/opa@${OPA_VERSION}"
[ -d "$mod" ] || { echo "OPA ${OPA_VERSION} sources are not in the Go module cache; run scripts/install-opa.sh first" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The native builtins are the keys of builtinsFunctions in the Wasm compiler, written as ast.<Name>.Name.
names=$(sed -n '/^var builtinsFunctions = map/,/^}/p' "$mod/internal/compiler/wasm/wasm.go" \
  | grep -o 'ast\.[A-Za-z0-9]*\.Name' | sed 's/$/,/')

cat >"$work/main.go" <<GO
package main

import (
	"encoding/json"
	"os"

	"github.com/open-policy-agent/opa/v1/ast"
)

func main() {
	native := map[string]bool{}
	for _, name := range []string{ ${names//$'\n'/ } } {
		native[name] = true
	}
	caps := ast.CapabilitiesForThisVersion()
	kept := caps.Builtins[:0]
	for _, b := range caps.Builtins {
		if native[b.Name] || b.Name == ast.Equality.Name || b.Name == ast.Assign.Name {
			kept = append(kept, b)
		}
	}
	caps.Builtins = kept
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(caps); err != nil {
		panic(err)
	}
}
GO
(cd "$work" && go mod init capgen >/dev/null 2>&1 && go mod edit -require "github.com/open-policy-agent/opa@${OPA_VERSION}" \
  && GOFLAGS=-mod=mod go run . >capabilities.json)
cp "$work/capabilities.json" policies/capabilities.json
echo "policies/capabilities.json: $(grep -c '"name"' policies/capabilities.json) builtin entries"

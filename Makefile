# The two commands of the README: `make run` and `make test`. Everything they need is built here
# from what is committed: npm packages, the pinned OPA and FerretDB (from the Go module proxy; the
# tests run toMongo's filters on FerretDB), policy.wasm and the TypeScript build.
SHELL := /bin/bash

.PHONY: build run fleet cluster test test-policy fuzz bench lint docs opa ferretdb clean

build: node_modules/.package-lock.json opa ferretdb dist/cjs/index.js dist/policy.wasm

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

opa:
	@bash scripts/install-opa.sh >/dev/null

ferretdb:
	@bash scripts/install-ferretdb.sh >/dev/null

dist/policy.wasm: policies/authz.rego policies/capabilities.json scripts/build-policy.sh examples/users-api/openapi.yaml examples/users-api/permissions.yaml dist/cjs/index.js | opa
	npm run --silent policies:build

dist/cjs/index.js: $(shell find src -name '*.ts') tsconfig.json tsconfig.build.json scripts/remove-stale-build.cjs scripts/write-esm-entries.cjs node_modules/.package-lock.json
	npm run --silent build:ts

run: build
	node examples/serve.mjs

fleet: build
	node examples/fleet/run.mjs

cluster: build
	node examples/cluster/primary.mjs

test: build
	bash scripts/test-all.sh

test-policy: opa
	bash scripts/test-policy.sh

fuzz: build
	bash scripts/fuzz.sh

lint: node_modules/.package-lock.json
	bash scripts/lint-rego.sh
	npx tsc -p tsconfig.json --noEmit

bench: build
	npm run --silent bench

# The API reference, from the TSDoc comments (typedoc.json), into docs/api/ (not committed).
docs: node_modules/.package-lock.json
	npx typedoc

clean:
	rm -rf dist build

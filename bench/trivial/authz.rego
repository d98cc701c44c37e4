# The floor of one opa-wasm evaluation for the benchmark (bench/run.mjs): the same entrypoint as
# policies/authz.rego and a decision of the same shape, but nothing decided.
package svcgate.authz

decision := {
	"allow": true,
	"attributes": ["!password", "*"],
	"role": "user",
	"possession": "own",
	"scopes": [],
	"reasons": [],
}

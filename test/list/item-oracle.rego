# The item decision of the fixed policy (policies/authz.rego, loaded unchanged beside this module)
# asked for one row whose id OPA does not know: opa-compile-oracle.test.ts partially evaluates
# `data.item_oracle.include` with `data.orders` unknown and turns what is left into SQL.
#
# OPA's SQL target cannot take the policy itself with the item's parameter unknown (the test shows
# the refusals), so this module asks it about the only values a row's id is compared with: the
# caller's claim values for the item's owned parameter, and one value that no claim holds (the
# probe), which stands for every other row. Each question is a whole evaluation of the real
# `decision` on a request built as the adapters build it (`input.request`, from buildInput), with
# the row's canonical id as the parameter's one element; only `data.orders.id_text == value` is
# left for the database.
package item_oracle

import data.svcgate.authz

# Every row, when the decision allows an id the caller's claims do not hold.
include if allows(input.probe)

# The rows whose id is a claimed value that the decision allows.
include if {
	some value in input.request.claims[input.key]
	allows(value)
	data.orders.id_text == value
}

allows(value) if authz.decision.allow with input as object.union(input.request, {"params": {input.key: [value]}})

# METADATA
# title: svcgate authorization
# description: |
#   The one fixed policy of svcgate. The user's configuration never changes this file: the ACL and
#   the OpenAPI operations arrive as data (data.svcgate.acl, written by the compiler) and the request
#   arrives as input. Its entrypoints are `decision` and, for list operations (x-acl-list), `plan`.
#
#   It runs mostly as OPA's Wasm build, which memoizes every rule without arguments in a table per
#   evaluation, rehashed through a decimal library each time it grows (at 6 and at 12 entries).
#   Cheap helpers are therefore functions, which are not memoized, so that one evaluation fills
#   fewer than 12 entries; and lists stand in for sets that need no lookup.
package svcgate.authz

# METADATA
# title: decision
# description: |
#   The structured answer for one request (`plan` adds the items of a list). An allowed request needs no
#   scopes and has no reasons; a denied one is granted no attributes.
# entrypoint: true
decision := {
	"allow": true,
	"attributes": attributes,
	"role": role,
	"possession": possession,
	"scopes": [],
	"reasons": [],
} if {
	allow
}

else := {
	"allow": false,
	"attributes": [],
	"role": role,
	"possession": possession,
	"scopes": scopes,
	"reasons": sort(deny_reasons),
}

# METADATA
# title: plan
# description: |
#   The decision on a list operation (x-acl-list), with the items the caller may see: all, none,
#   or those whose owned parameters hold one of the caller's values (OR over anyOf, AND over the
#   parameters of one entry). Exactly the items the item operation's decision allows one by one:
#   `any` allows every item, `own` those whose every owned parameter the bound claim lists.
#   Undefined on other operations, whose requests are decided by `decision` alone.
# entrypoint: true
plan := object.union(decision, {"list": items_plan}) if operation.list

items_plan := {"kind": "none", "anyOf": [], "attributes": []} if not allow

else := {"kind": "all", "anyOf": [], "attributes": attributes} if possession == "any"

else := {"kind": "some", "anyOf": [listed_values], "attributes": attributes}

# The item's owned parameter name -> the caller's values for it, as a set: OPA's Wasm build sorts
# in quadratic time (20,000 values took 2 s), so the adapters sort the values they hand over.
listed_values[param.name] := claimed_values(key) if some key, param in operation.list.params

claimed_values(key) := {value | some value in object.get(object.get(input, "claims", {}), key, []); is_string(value)}

default allow := false

# One body that reads the input checks, the operation and the possession once each, and a function
# that takes them as arguments: every reference to a rule is a lookup in the memo table, and one
# body per case cost an evaluation 5% more.
allow if {
	count(input_errors) == 0
	granted(operation, possession)
}

# Operations that do not require the bearer scheme are not guarded; the adapters skip them, and the
# policy agrees so that `svcgate explain` and `opa eval` tell the same story.
granted(op, _) if op.secured == false

granted(op, "any") if scopes_met(op)

granted(op, "own") if {
	scopes_met(op)
	has_owned_parameter(op)
	count(unowned_keys) == 0
}

# A list operation lists through `own` when the item has owned parameters and the caller holds a
# value for each; an item without any can only be read, so listed, through `any`.
granted(op, "own") if {
	op.list
	scopes_met(op)
	count(op.list.params) > 0
	every key, _ in op.list.params {
		count(claimed_values(key)) > 0
	}
}

# The attributes of an allowed request: those of the grants of the deciding possession. An `any`
# grant always decides when there is one (`any` implies `own`), so callers allowed through `own`
# see only what `own` grants. A caller with several roles sees the union of what their lists show
# ("non-negated wins" across lists, as in accesscontrol): every granting glob, and a negation only
# where no other role's list shows that path (else one role's `!password` would hide what another
# grants). The compiler has united each role's list with those of the roles it extends the same way
# (src/policy/attributes/attribute-union.ts).
attributes := ["*"] if operation.secured == false

else := sort({attribute |
	some i, granted in caller_grants
	some attribute in granted[possession]
	kept_in_union(i, attribute)
})

default role := null

role := min([subject | some i, subject in subject_roles; grants_something(caller_grants[i][possession])])

default possession := null

possession := "any" if grants_possession("any")

else := "own" if grants_possession("own")

# A list grants something when it holds a glob that is not a negation (accesscontrol's `granted`):
# an empty list, or one of negations only, grants nothing. The compiler leaves such lists out; the
# policy does not count them either, for data written by hand.
grants_possession(wanted) if {
	some granted in caller_grants
	grants_something(granted[wanted])
}

grants_something(list) if {
	some pattern in list
	not startswith(pattern, "!")
}

kept_in_union(_, attribute) if not startswith(attribute, "!")

kept_in_union(i, attribute) if {
	startswith(attribute, "!")
	path := glob_segments(attribute)
	not shown_by_another_role(i, attribute, path)
}

# Only the globs that can cover the path are compared with it. A role whose list holds the same
# negation does not show its path (nothing there is more specific, and a negation wins a tie): roles
# that extend one another share most of their lists. A role whose granting globs start with neither
# the path's first key nor `*` cannot show it; of the others only the globs that start so are read.
# Comparing every negation with every glob of every other role made a caller with two roles of 80
# globs cost ten times as much, and two of 1,000 (a chain of $extend) minutes and gigabytes.
shown_by_another_role(i, negation, path) if {
	some j, granted in caller_grants
	j != i
	not caller_globs[j][negation]
	may_show(grant_firsts[j], path[0])
	shows(covering_globs(j, granted, path[0]), path)
}

# The globs of role j that start with `key` or `*`: only those starting with `*` (listed once per
# request) when no glob of the role starts with `key`, as when the roles hide different fields.
covering_globs(j, grants, key) := star_globs[j] if not glob_firsts[j][key]

else := [pattern | some pattern in possessed(grants); starts_with_key(pattern, key)]

may_show(firsts, key) if firsts[key]

may_show(firsts, _) if firsts["*"]

# For each role of the caller (in caller_grants' order): its globs as a set, the first keys of all
# its globs, its globs starting with `*`, and the first keys of those it grants with.
caller_globs := [{pattern | some pattern in possessed(granted)} | some granted in caller_grants]

glob_firsts := [{first_key(pattern) | some pattern in possessed(granted)} | some granted in caller_grants]

star_globs := [[pattern | some pattern in possessed(granted); starts_with_key(pattern, "*")] |
	some granted in caller_grants
]

grant_firsts := [{first_key(pattern) | some pattern in possessed(granted); not startswith(pattern, "!")} |
	some granted in caller_grants
]

# A role's list for the deciding possession.
possessed(granted) := object.get(granted, possession, [])

first_key(pattern) := glob_segments(pattern)[0]

# Whether a glob's first key is `key` or `*`: read from its text, leading dots skipped as
# glob_segments skips empty segments, with no split.
starts_with_key(pattern, key) if leads_with(trim_left(trim_prefix(pattern, "!"), "."), key)

starts_with_key(pattern, _) if leads_with(trim_left(trim_prefix(pattern, "!"), "."), "*")

leads_with(text, key) if text == key

leads_with(text, key) if startswith(text, concat("", [key, "."]))

# Whether a list of globs shows the value at `path` (a list of keys): the most specific glob that
# covers it decides (the longest; then one ending in a name over one ending in `*`), a negation
# wins a tie, and a path no glob covers is hidden. The same rule as the filter's
# (src/policy/attributes/attribute-glob.ts).
shows(list, path) if {
	best := max([cover_rank(pattern, path) | some pattern in list])
	best >= 0
	every pattern in list {
		not negation_at(pattern, path, best)
	}
}

negation_at(pattern, path, rank) if {
	startswith(pattern, "!")
	cover_rank(pattern, path) == rank
}

# Twice the glob's length, plus one when it ends in a name; -1 when it does not cover the path.
cover_rank(pattern, path) := rank if {
	segments := glob_segments(pattern)
	count(segments) > 0
	count(segments) <= count(path)
	every k, segment in segments {
		segment_matches(segment, path[k])
	}
	rank := (2 * count(segments)) + named_end(segments)
} else := -1

named_end(segments) := 0 if segments[count(segments) - 1] == "*"

else := 1

segment_matches("*", _)

segment_matches(segment, key) if segment == key

glob_segments(pattern) := [segment | some segment in split(trim_prefix(pattern, "!"), "."); segment != ""]

operation := data.svcgate.acl.operations[input.operation]

# Roles of the caller, from the raw role claim that the adapter copied into the input. The `else`
# chain stops at the first definition that holds (they exclude one another), where separate
# definitions would all be evaluated on every request.
subject_roles := [input.role] if is_string(input.role)

else := input.role if {
	is_array(input.role)
	count(input.role) > 0
	every name in input.role {
		is_string(name)
	}
}

else := ["anonymous"] if not role_claim_present

role_claim_present if has_key(input, "role")

# Caller role -> what it may do on the operation (possession -> attributes). The compiler has
# already followed `$extend` and added the built-in anonymous grant, so this is one lookup per role:
# the role's cell in the operation's row of the grant table names a grant set, and a cell of
# dashes (no such set) grants nothing. A list in the order of subject_roles, so that the deciding
# role is found by position; a role without a column (not declared) grants nothing too.
caller_grants := [grants_of(subject) | some subject in subject_roles] if operation.secured == true

grants_of(subject) := granted if {
	granted := data.svcgate.acl.grant_sets[grant_cell(subject)]
} else := {}

grant_cell(subject) := substring(
	operation.grants,
	data.svcgate.acl.grant_offsets[subject],
	data.svcgate.acl.grant_width,
)

# The scopes the token needs, as alternatives: one per security requirement with the guarded
# scheme, any one met is enough. The compiler writes none when no scope is needed; data written
# before scopes existed has no such field.
scopes_met(op) if not op.scopes[0]

scopes_met(op) if {
	some alternative in op.scopes
	every scope in alternative {
		scope in caller_scopes
	}
}

# The token's scopes that the operation names; the adapter copies them only when some are needed.
caller_scopes := {scope | some scope in input.scopes}

default scopes := []

# What an insufficient_scope challenge asks for: the scopes of the first alternative.
scopes := operation.scopes[0] if {
	operation.secured == true
	not scopes_met(operation)
}

has_owned_parameter(op) if {
	some parameter in op.params
	parameter.owned == true
}

# The owned parameters whose value the caller does not own.
unowned_keys contains key if {
	some key, parameter in operation.params
	parameter.owned == true
	not owns(key)
}

owns(key) if {
	has_key(input, "checks")
	input.checks[key] == true
}

# A parameter is owned when every element of its value is among the values of its bound claim;
# both sides were serialized by the adapter under the parameter's OpenAPI rules.
owns(key) if {
	not has_key(input, "checks")
	values := input.params[key]
	is_array(values)
	count(values) > 0
	claimed := {value | some value in input.claims[key]}
	every value in values {
		is_string(value)
		value in claimed
	}
}

input_errors contains "input must be an object" if not is_object(input)

input_errors contains "input.operation must be a string" if {
	is_object(input)
	not string_field(input, "operation")
}

input_errors contains concat("", ["input.", field, " must be an object of string lists"]) if {
	some field in ["params", "claims"]
	not string_lists(object.get(input, field, {}))
}

input_errors contains "input.scopes must be a list of strings" if {
	is_object(input)
	has_key(input, "scopes")
	not string_list(input.scopes)
}

input_errors contains "input.checks must be an object of booleans" if {
	has_key(input, "checks")
	not boolean_object(input.checks)
}

string_field(document, key) if is_string(document[key])

# Defined for a key whose value is false or null too, unlike a bare reference.
has_key(document, key) if {
	_ = document[key]
}

string_lists(value) if {
	is_object(value)
	every list in value {
		is_array(list)
	}
}

string_list(value) if {
	is_array(value)
	every item in value {
		is_string(item)
	}
}

boolean_object(value) if {
	is_object(value)
	every flag in value {
		is_boolean(flag)
	}
}

# METADATA
# description: Why a request was denied; empty when it was allowed.
# scope: document
deny_reasons contains message if some message in input_errors

deny_reasons contains "the data document is missing: load data.svcgate.acl" if {
	not operation
	not data.svcgate.acl.operations
}

deny_reasons contains concat("", ["unknown operation ", input.operation]) if {
	not operation
	is_string(input.operation)
	data.svcgate.acl.operations
}

deny_reasons contains "the role claim must be a string or a non-empty list of strings" if {
	not subject_roles
	operation.secured == true
}

deny_reasons contains concat("", ["role ", name, " is not declared in the ACL"]) if {
	operation.secured == true
	some name in subject_roles
	not data.svcgate.acl.roles[name]
	not default_anonymous(name)
}

deny_reasons contains concat("", [
	"no role of the caller is granted ", operation.action,
	" on ", operation.resource,
]) if {
	possession == null
	subject_roles
	operation.secured == true
}

deny_reasons contains concat("", [
	operation.action, ":own has nothing to own on ", input.operation,
	": only ", operation.action, ":any can allow it",
]) if {
	possession == "own"
	not operation.list
	not has_owned_parameter(operation)
}

deny_reasons contains concat("", [
	"read:own lists nothing on ", input.operation, ": its item ", operation.list.item,
	" has no owned parameter, so only read:any can list it",
]) if {
	possession == "own"
	count(operation.list.params) == 0
}

deny_reasons contains reason if {
	possession == "own"
	some key, _ in operation.list.params
	count(claimed_values(key)) == 0
	reason := operation.unowned_reasons[key]
}

# The compiler writes the message for each owned parameter: building it here cost a denied
# evaluation 3%.
deny_reasons contains reason if {
	possession == "own"
	some key in unowned_keys
	reason := operation.unowned_reasons[key]
}

deny_reasons contains concat("", [
	"missing scope ", concat(" ", missing),
	" of the security requirement ", concat(" ", alternative),
]) if {
	operation.secured == true
	not scopes_met(operation)
	some alternative in operation.scopes
	missing := [scope | some scope in alternative; not scope in caller_scopes]
}

default_anonymous(name) if {
	name == "anonymous"
	data.svcgate.acl.anonymous_default == true
}

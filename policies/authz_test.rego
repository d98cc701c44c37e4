package svcgate.authz_test

import data.svcgate.authz

# A small API: a collection, an item owned through its path parameter, and an item whose
# parameter is bound to another claim with x-acl-binding. Grants are written as the compiler
# writes them: a table with one row per operation and one cell per role, with `$extend` already
# followed (vet extends owner) and the built-in anonymous grant on the parameterless read, and
# with the deny message for each owned parameter.
# Columns: owner, vet, blocked, anonymous. Cells: the letters of grant_sets, `-` for nothing.
pet_id := {"path:petId": {"name": "petId", "in": "path", "owned": true}}

grant_sets := {
	"o": {"own": ["*"]},
	"a": {"any": ["*"]},
	"b": {"any": []},
	"n": {"own": ["name"]},
	"v": {"any": ["name", "health"], "own": ["name"]},
}

operations := {
	"GET /pets": {
		"resource": "/pets", "action": "read", "secured": true,
		"params": {},
		"grants": "ooba",
	},
	"GET /pets/{petId}": {
		"resource": "/pets/{petId}", "action": "read", "secured": true,
		"params": pet_id,
		"grants": "nv--",
		"unowned_reasons": {"path:petId": "read:own needs ownership of path parameter petId"},
	},
	"DELETE /pets/{petId}": {
		"resource": "/pets/{petId}", "action": "delete", "secured": true,
		"params": pet_id,
		"grants": "oo--",
		"unowned_reasons": {"path:petId": "delete:own needs ownership of path parameter petId"},
	},
	"GET /homes/{homeId}": {
		"resource": "/homes/{homeId}", "action": "read", "secured": true,
		"params": {"path:homeId": {"name": "homeId", "in": "path", "owned": true}},
		"grants": "o---",
		"unowned_reasons": {"path:homeId": "read:own needs ownership of path parameter homeId"},
	},
	"GET /open": {
		"resource": "/open", "action": "read", "secured": false,
		"params": {},
		"grants": "----",
	},
	"GET /records": {
		"resource": "/records", "action": "read", "secured": true,
		"params": {},
		"grants": "-a--",
		"scopes": [["records:read"], ["records:admin", "records:write"]],
	},
}

api := {
	"anonymous_default": true,
	"roles": {"owner": {"extends": []}, "vet": {"extends": ["owner"]}, "blocked": {"extends": []}},
	"grant_offsets": {"owner": 0, "vet": 1, "blocked": 2, "anonymous": 3},
	"grant_width": 1,
	"grant_sets": grant_sets,
	"operations": operations,
}

test_owner_reads_own_pet if {
	request := {
		"operation": "GET /pets/{petId}",
		"role": "owner",
		"params": {"path:petId": ["4"]},
		"claims": {"path:petId": ["4", "5"]},
	}
	d := authz.decision with input as request
		with data.svcgate.acl as api
	d.allow
	d.possession == "own"
	d.role == "owner"
	d.attributes == ["name"]
	d.reasons == []
}

test_owner_denied_other_pet if {
	request := {
		"operation": "GET /pets/{petId}",
		"role": "owner",
		"params": {"path:petId": ["6"]},
		"claims": {"path:petId": ["4", "5"]},
	}
	d := authz.decision with input as request
		with data.svcgate.acl as api
	not d.allow
	d.attributes == []
	d.reasons == ["read:own needs ownership of path parameter petId"]
}

test_vet_reads_any_pet_through_any if {
	d := authz.decision with input as {"operation": "GET /pets/{petId}", "role": "vet", "params": {"path:petId": ["6"]}}
		with data.svcgate.acl as api
	d.allow
	d.possession == "any"
	d.attributes == ["health", "name"]
}

test_vet_inherits_delete_own_from_owner if {
	request := {
		"operation": "DELETE /pets/{petId}",
		"role": "vet",
		"params": {"path:petId": ["1"]},
		"claims": {"path:petId": ["1"]},
	}
	d := authz.decision with input as request
		with data.svcgate.acl as api
	d.allow
	d.possession == "own"
	d.role == "vet"
}

test_own_on_collection_has_nothing_to_own if {
	d := authz.decision with input as {"operation": "GET /pets", "role": "owner"}
		with data.svcgate.acl as api
	not d.allow
	d.possession == "own"
	d.reasons == ["read:own has nothing to own on GET /pets: only read:any can allow it"]
}

test_empty_attribute_list_grants_nothing if {
	d := authz.decision with input as {"operation": "GET /pets", "role": "blocked"}
		with data.svcgate.acl as api
	not d.allow
	d.reasons == ["no role of the caller is granted read on /pets"]
}

test_anonymous_default_reads_parameterless_operation if {
	d := authz.decision with input as {"operation": "GET /pets"}
		with data.svcgate.acl as api
	d.allow
	d.role == "anonymous"
}

test_anonymous_without_a_grant_is_denied if {
	d := authz.decision with input as {"operation": "GET /pets/{petId}", "params": {"path:petId": ["1"]}}
		with data.svcgate.acl as api
	not d.allow
	d.reasons == ["no role of the caller is granted read on /pets/{petId}"]
}

test_anonymous_is_undeclared_when_the_default_is_off if {
	no_default := object.union(api, {"anonymous_default": false})
	d := authz.decision with input as {"operation": "GET /homes/{homeId}"}
		with data.svcgate.acl as no_default
	not d.allow
	"role anonymous is not declared in the ACL" in d.reasons
}

test_cells_of_two_characters if {
	wide := object.union(api, {
		"grant_offsets": {"owner": 0, "vet": 2, "blocked": 4, "anonymous": 6},
		"grant_width": 2,
		"grant_sets": {"aa": {"own": ["*"]}, "ab": {"any": ["*"]}},
		"operations": {"GET /pets": object.union(operations["GET /pets"], {"grants": "aaab----"})},
	})
	owner := authz.decision with input as {"operation": "GET /pets", "role": "owner"}
		with data.svcgate.acl as wide
	owner.possession == "own"
	vet := authz.decision with input as {"operation": "GET /pets", "role": "vet"}
		with data.svcgate.acl as wide
	vet.allow
	vet.possession == "any"
}

# Data written by hand may be wrong; a cell that names no grant set, or that lies beyond the end
# of a short row, grants nothing.
test_cell_naming_nothing_grants_nothing if {
	short := object.union(api, {"operations": {"GET /pets": object.union(operations["GET /pets"], {"grants": "zo"})}})
	owner := authz.decision with input as {"operation": "GET /pets", "role": "owner"}
		with data.svcgate.acl as short
	anonymous := authz.decision with input as {"operation": "GET /pets"}
		with data.svcgate.acl as short
	not owner.allow
	owner.reasons == ["no role of the caller is granted read on /pets"]
	not anonymous.allow
}

test_check_ownership_result_decides if {
	request := {"operation": "GET /homes/{homeId}", "role": "owner", "params": {"path:homeId": ["1"]}}
	allowed := authz.decision with input as object.union(request, {"checks": {"path:homeId": true}})
		with data.svcgate.acl as api
	denied := authz.decision with input as object.union(request, {"checks": {"path:homeId": false}})
		with data.svcgate.acl as api
	allowed.allow
	not denied.allow
}

test_unsecured_operation_is_allowed_unchecked if {
	d := authz.decision with input as {"operation": "GET /open", "role": ["whatever"]}
		with data.svcgate.acl as api
	d.allow
	d.role == null
	d.attributes == ["*"]
}

test_missing_data_document_denies if {
	d := authz.decision with input as {"operation": "GET /pets"} with data.svcgate.acl as {}
	not d.allow
	"the data document is missing: load data.svcgate.acl" in d.reasons
}

test_malformed_role_claim_denies if {
	d := authz.decision with input as {"operation": "GET /pets", "role": false}
		with data.svcgate.acl as api
	not d.allow
	d.reasons == ["the role claim must be a string or a non-empty list of strings"]
}

test_scope_alternative_met_allows if {
	first := authz.decision with input as {"operation": "GET /records", "role": "vet", "scopes": ["records:read"]}
		with data.svcgate.acl as api
	second_input := {"operation": "GET /records", "role": "vet", "scopes": ["records:write", "records:admin"]}
	second := authz.decision with input as second_input
		with data.svcgate.acl as api
	first.allow
	first.scopes == []
	second.allow
}

test_missing_scope_denies_and_names_what_to_ask_for if {
	d := authz.decision with input as {"operation": "GET /records", "role": "vet", "scopes": ["records:write"]}
		with data.svcgate.acl as api
	not d.allow
	d.possession == "any"
	d.scopes == ["records:read"]
	d.reasons == [
		"missing scope records:admin of the security requirement records:admin records:write",
		"missing scope records:read of the security requirement records:read",
	]
}

test_scopes_do_not_replace_the_role_acl if {
	d := authz.decision with input as {"operation": "GET /records", "role": "owner", "scopes": ["records:read"]}
		with data.svcgate.acl as api
	not d.allow
	d.scopes == []
	d.reasons == ["no role of the caller is granted read on /records"]
}

test_operation_without_scopes_field_needs_none if {
	d := authz.decision with input as {"operation": "GET /pets/{petId}", "role": "vet", "params": {"path:petId": ["6"]}}
		with data.svcgate.acl as api
	d.allow
	d.scopes == []
}

test_malformed_scopes_deny if {
	d := authz.decision with input as {"operation": "GET /records", "role": "vet", "scopes": {"records:read": true}}
		with data.svcgate.acl as api
	not d.allow
	"input.scopes must be a list of strings" in d.reasons
}

# The decision table shared with the jest parity test (policies/parity/decision_table.json).
# Every row is evaluated here by OPA and, in jest, by policy.wasm; both must give `expected`.
test_parity_table_has_enough_rows if count(data.parity.rows) >= 60

test_parity_table_matches if {
	mismatches := {row.name |
		some row in data.parity.rows
		got := authz.decision with input as row.input with data.svcgate.acl as data.parity.datasets[row.data]
		got != row.expected
	}
	count(mismatches) == 0
}

# Several roles: the union of their lists, as accesscontrol unites them. One operation, one column
# per role: user hides password, admin shows everything, viewer shows only name and address.city,
# auditor hides password and email, nothing grants only negations, nested reaches into address,
# keeper shows secret but also negates it, mixed shows a.* while "!a.b" hides a.b elsewhere.
union_sets := {
	"u": {"any": ["*", "!password"]},
	"a": {"any": ["*"]},
	"v": {"any": ["name", "address.city"]},
	"d": {"any": ["*", "!email", "!password"]},
	"n": {"any": ["!password"]},
	"h": {"any": ["*", "!address"]},
	"k": {"any": ["secret", "!secret"]},
	"m": {"any": ["a.*"]},
	"b": {"any": ["*", "!a.b"]},
}

union_offsets := {
	"user": 0, "admin": 1, "viewer": 2, "auditor": 3, "nothing": 4,
	"hider": 5, "keeper": 6, "mixed": 7, "blinder": 8,
}

union_api := {
	"anonymous_default": false,
	"roles": {role: {"extends": []} | some role in object.keys(union_offsets)},
	"grant_offsets": union_offsets,
	"grant_width": 1,
	"grant_sets": union_sets,
	"operations": {"GET /profile": {
		"resource": "/profile", "action": "read", "secured": true,
		"params": {},
		"grants": "uavdnhkmb",
	}},
}

# A helper of the tests below: `with` and the data it replaces are read here, for each of them.
union_of(roles) := d.attributes if {
	# regal ignore:with-outside-test-context,external-reference
	d := authz.decision with input as {"operation": "GET /profile", "role": roles} with data.svcgate.acl as union_api
}

test_union_another_role_unmasks_a_negation if union_of(["user", "admin"]) == ["*"]

test_union_keeps_a_negation_every_role_shares if union_of(["user", "auditor"]) == ["!password", "*"]

test_union_keeps_a_negation_where_the_other_role_shows_nothing if {
	union_of(["user", "viewer"]) == ["!password", "*", "address.city", "name"]
	union_of(["hider", "viewer"]) == ["!address", "*", "address.city", "name"]
}

test_union_a_tie_of_grant_and_negation_hides if union_of(["user", "keeper"]) == ["!password", "*", "secret"]

test_union_a_glob_ending_in_star_shows_below_it if union_of(["blinder", "mixed"]) == ["*", "a.*"]

test_union_of_one_role_is_its_list if union_of(["user"]) == ["!password", "*"]

test_negations_only_grant_nothing if {
	d := authz.decision with input as {"operation": "GET /profile", "role": "nothing"}
		with data.svcgate.acl as union_api
	not d.allow
	d.possession == null
	d.reasons == ["no role of the caller is granted read on /profile"]
}

test_negations_only_neither_grant_nor_hide_beside_a_granting_role if {
	d := authz.decision with input as {"operation": "GET /profile", "role": ["nothing", "admin"]}
		with data.svcgate.acl as union_api
	d.allow
	d.role == "admin"
	d.attributes == ["*"]
}

# A negation another role answers with a negation as specific (spelled otherwise) is kept: that
# role hides the path too. The policy compares it only with that role's globs starting with the
# path's first key or `*`, and skips a role that holds the same negation.
test_union_a_tie_in_another_role_keeps_the_negation if {
	tied := object.union(union_sets, {"u": {"any": ["*", "!a.b"]}, "a": {"any": ["a.b", "!*.b"]}})
	union_of(["user", "admin"]) == ["!a.b", "*", "a.b"] with union_sets as tied
}

# List operations (x-acl-list), as the compiler writes them: the item's grants row, resource and
# owned parameters, `read` as the action, and a reason per owned parameter for a token without a
# value. GET /pet-list lists GET /pets/{petId}; GET /record-list lists GET /records, which has no
# owned parameter, and needs its scopes.
listing_operations := {
	"GET /pet-list": {
		"resource": "/pets/{petId}", "action": "read", "secured": true,
		"params": {},
		"grants": "nv--",
		"list": {"item": "GET /pets/{petId}", "params": pet_id},
		"unowned_reasons": {"path:petId": "read:own lists nothing: no petId"},
	},
	"GET /record-list": {
		"resource": "/records", "action": "read", "secured": true,
		"params": {},
		"grants": "oa--",
		"scopes": [["records:read"]],
		"list": {"item": "GET /records", "params": {}},
	},
}

listing_api := object.union(api, {"operations": object.union(operations, listing_operations)})

test_plan_own_lists_the_claimed_strings_once if {
	p_input := {"operation": "GET /pet-list", "role": "owner", "claims": {"path:petId": ["5", "4", 4]}}
	p := authz.plan with input as p_input with data.svcgate.acl as listing_api
	p.allow
	p.possession == "own"
	p.list == {"kind": "some", "anyOf": [{"petId": {"4", "5"}}], "attributes": ["name"]}
}

test_plan_any_lists_all if {
	p_input := {"operation": "GET /pet-list", "role": "vet", "claims": {"path:petId": ["4"]}}
	p := authz.plan with input as p_input with data.svcgate.acl as listing_api
	p.allow
	p.list == {"kind": "all", "anyOf": [], "attributes": ["health", "name"]}
}

test_plan_of_a_second_role_decides if {
	p_input := {"operation": "GET /pet-list", "role": ["blocked", "owner"], "claims": {"path:petId": ["4"]}}
	p := authz.plan with input as p_input with data.svcgate.acl as listing_api
	p.role == "owner"
	p.list.kind == "some"
}

test_plan_without_a_grant_lists_none if {
	p_input := {"operation": "GET /pet-list", "role": "blocked", "claims": {"path:petId": ["4"]}}
	p := authz.plan with input as p_input with data.svcgate.acl as listing_api
	not p.allow
	p.list == {"kind": "none", "anyOf": [], "attributes": []}
	p.reasons == ["no role of the caller is granted read on /pets/{petId}"]
}

test_plan_own_without_a_value_lists_none if {
	every claims in [{}, {"path:petId": []}, {"path:petId": [4]}] {
		p_input := {"operation": "GET /pet-list", "role": "owner", "claims": claims}
		p := authz.plan with input as p_input with data.svcgate.acl as listing_api
		not p.allow
		p.list.kind == "none"
		p.reasons == ["read:own lists nothing: no petId"]
	}
}

test_plan_own_of_an_item_without_owned_parameter_lists_none if {
	p_input := {"operation": "GET /record-list", "role": "owner", "scopes": ["records:read"]}
	p := authz.plan with input as p_input with data.svcgate.acl as listing_api
	not p.allow
	p.list.kind == "none"
	p.reasons == [concat("", [
		"read:own lists nothing on GET /record-list: its item GET /records has no owned parameter, ",
		"so only read:any can list it",
	])]
}

test_plan_needs_the_scopes if {
	p_input := {"operation": "GET /record-list", "role": "vet", "scopes": []}
	p := authz.plan with input as p_input with data.svcgate.acl as listing_api
	not p.allow
	p.list.kind == "none"
	p.scopes == ["records:read"]
	met_input := {"operation": "GET /record-list", "role": "vet", "scopes": ["records:read"]}
	met := authz.plan with input as met_input with data.svcgate.acl as listing_api
	met.list.kind == "all"
}

test_plan_is_undefined_on_other_operations if {
	request := {"operation": "GET /pets/{petId}", "role": "vet", "params": {"path:petId": ["4"]}}
	not authz.plan with input as request with data.svcgate.acl as listing_api
}

test_decision_on_a_list_operation_agrees_with_the_plan if {
	every role in ["owner", "vet", "blocked"] {
		request := {"operation": "GET /pet-list", "role": role, "claims": {"path:petId": ["4"]}}
		d := authz.decision with input as request with data.svcgate.acl as listing_api
		p := authz.plan with input as request with data.svcgate.acl as listing_api
		d.allow == p.allow
	}
}

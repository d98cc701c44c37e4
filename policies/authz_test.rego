package svcgate.authz_test

import data.svcgate.authz

# A small API: a collection, an item owned through its path parameter, and an item whose
# parameter is bound to another claim with x-acl-binding.
operations := {
	"GET /pets": {
		"resource": "/pets", "action": "read", "secured": true,
		"params": {},
	},
	"GET /pets/{petId}": {
		"resource": "/pets/{petId}", "action": "read", "secured": true,
		"params": {"path:petId": {"name": "petId", "in": "path", "owned": true}},
	},
	"DELETE /pets/{petId}": {
		"resource": "/pets/{petId}", "action": "delete", "secured": true,
		"params": {"path:petId": {"name": "petId", "in": "path", "owned": true}},
	},
	"GET /homes/{homeId}": {
		"resource": "/homes/{homeId}", "action": "read", "secured": true,
		"params": {"path:homeId": {"name": "homeId", "in": "path", "owned": true}},
	},
	"GET /open": {
		"resource": "/open", "action": "read", "secured": false,
		"params": {},
	},
}

roles := {
	"owner": {"grants": {
		"/pets/{petId}": {"read:own": ["name"], "delete:own": ["*"]},
		"/pets": {"read:own": ["*"]},
	}},
	"vet": {"grants": {"/pets/{petId}": {"read:any": ["name", "health"]}}},
	"blocked": {"grants": {"/pets": {"read:any": []}}},
}

api := {
	"anonymous_default": true,
	"roles": roles,
	"extends": {"owner": [], "vet": ["owner"], "blocked": []},
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

test_anonymous_default_off_when_declared if {
	d := authz.decision with input as {"operation": "GET /pets"}
		with data.svcgate.acl as object.union(api, {"anonymous_default": false})
	not d.allow
}

test_check_ownership_result_decides if {
	request := {"operation": "GET /homes/{homeId}", "role": "owner", "params": {"path:homeId": ["1"]}}
	owner_grants := {"owner": {"grants": {"/homes/{homeId}": {"read:own": ["*"]}}}}
	allowed := authz.decision with input as object.union(request, {"checks": {"path:homeId": true}})
		with data.svcgate.acl as object.union(api, {"roles": owner_grants})
	denied := authz.decision with input as object.union(request, {"checks": {"path:homeId": false}})
		with data.svcgate.acl as object.union(api, {"roles": owner_grants})
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

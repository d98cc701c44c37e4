# The one place the OPA version is pinned; sourced by the other scripts.
OPA_VERSION=v1.22.2

# The one place the FerretDB version is pinned; sourced by scripts/install-ferretdb.sh.
FERRETDB_VERSION=v1.24.2

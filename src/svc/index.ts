// Library B (SvcContainer, SvcApi, svcAcl) is built in issue #4; the entry point exists so that
// the package layout and its subpath exports are fixed from the start.
export {};

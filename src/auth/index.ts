// Library A (bearerJwt, BearerJWT, bearerJwtAcl) is built in issue #3; the entry point exists so that
// the package layout and its subpath exports are fixed from the start.
export {};

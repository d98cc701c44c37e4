// The large ACL of the benchmark: 1,000 paths, each granted to each of 1,000 roles (read:any
// to half, read:own to the other half), on an OpenAPI document whose scheme is `b`.
export function largeApi() {
  const paths = {};
  for (let p = 0; p < 1000; p++) paths[`/r${p}/{id}`] = { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }] } };
  const openapi = { openapi: '3.0.3', info: { title: 'large', version: '1' }, security: [{ b: [] }], components: { securitySchemes: { b: { type: 'http', scheme: 'bearer' } } }, paths };
  return { openapi, acl: largeAcl(0) };
}

/** The large ACL; a different `variant` moves every grant, so each variant is a new revision of the same size. */
export function largeAcl(variant) {
  const acl = {};
  for (let r = 0; r < 1000; r++) {
    const grants = {};
    for (let p = 0; p < 1000; p++) grants[`/r${p}/{id}`] = { [(r + p + variant) % 2 === 0 ? 'read:any' : 'read:own']: ['*'] };
    acl[`role${r}`] = grants;
  }
  return acl;
}

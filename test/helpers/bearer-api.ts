/** A minimal OpenAPI 3.0 document whose operations all need the `bearerAuth` JWT scheme. */
export function bearerApi(paths: Record<string, unknown>, title = 'test'): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: { title, version: '1' },
    security: [{ bearerAuth: [] }],
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    paths,
  };
}

/** A GET operation with one required path parameter of the given schema type. */
export function getWithPathParam(name: string, type: string): Record<string, unknown> {
  return { get: { parameters: [{ name, in: 'path', required: true, schema: { type } }] } };
}

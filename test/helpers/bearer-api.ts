/** What a test may set in bearerApi's document when it depends on them: the OpenAPI version and the scheme's name. */
export interface BearerApiOptions {
  openapi?: string;
  scheme?: string;
}

/** A minimal OpenAPI document (3.0.3 unless told) whose operations all need one JWT scheme (`bearerAuth` unless told). */
export function bearerApi<Paths extends Record<string, unknown>>(
  paths: Paths,
  title = 'test',
  { openapi = '3.0.3', scheme = 'bearerAuth' }: BearerApiOptions = {},
): Record<string, unknown> & { paths: Paths } {
  return {
    openapi,
    info: { title, version: '1' },
    security: [{ [scheme]: [] }],
    components: { securitySchemes: { [scheme]: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    paths,
  };
}

/** A GET operation with one required path parameter of the given schema type. */
export function getWithPathParam(name: string, type: string): Record<string, unknown> {
  return { get: { parameters: [{ name, in: 'path', required: true, schema: { type } }] } };
}

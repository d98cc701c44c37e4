import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';
import { readsBody } from './http-method';
import type { SvcRoute } from './routes';

export type RoutesOpenApi = OpenAPIV3_1.Document;
type JsonSchema = Record<string, unknown> & { properties?: Record<string, Record<string, unknown>>; required?: string[] };

const ERROR = { type: 'object', properties: { error: { type: 'string' }, message: { type: 'string' } }, required: ['error', 'message'] };

/**
 * Describes the routes as OpenAPI 3.1: one operation per route, `operationId` `<instance>.<method>`.
 * The argument is the JSON request body (POST, PUT, PATCH) or query parameters (GET, DELETE),
 * described from the method's zod schema when it has one.
 */
export function routesOpenApi(routes: readonly SvcRoute[]): RoutesOpenApi {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const schema = route.schema ? argumentSchema(route) : undefined;
    const operation: Record<string, unknown> = {
      operationId: `${route.instance}.${route.method}`,
      tags: [route.instance],
      responses: {
        200: { description: 'The JSON of the returned value' },
        204: { description: 'The method returned undefined' },
        400: { description: 'Invalid argument or malformed JSON', content: { 'application/json': { schema: ERROR } } },
      },
    };
    // The item's path, as the compiler links a list operation to the GET that reads one item (svcAcl decides it with the item's grants).
    if (route.listOf !== undefined) operation['x-acl-list'] = { item: route.listOf };
    if (readsBody(route.httpMethod)) {
      operation.requestBody = { required: false, content: { 'application/json': { schema: schema ?? { type: 'object' } } } };
    } else if (schema?.properties) {
      operation.parameters = Object.entries(schema.properties).map(([name, property]) => ({
        name,
        in: 'query',
        required: schema.required?.includes(name) ?? false,
        schema: property,
      }));
    }
    paths[route.path] = { [route.httpMethod.toLowerCase()]: operation };
  }
  return { openapi: '3.1.0', info: { title: 'SvcApi', version: '1.0.0' }, paths } as RoutesOpenApi;
}

function argumentSchema(route: SvcRoute): JsonSchema {
  // Typed as ArgumentSchema so the published types name no zod type; what `static schemas` holds is zod's.
  const { $schema: _dialect, ...schema } = z.toJSONSchema(route.schema as z.ZodType, { unrepresentable: 'any' }) as JsonSchema;
  return schema;
}

import { z } from 'zod';
import { ConfigError, jsonPath } from './config-error';
import {
  operationKey,
  paramKey,
  type Action,
  type OperationFacts,
  type ParamLocation,
  type ParamSpec,
  type ParamStyle,
  type SchemaType,
} from './data-document';
import { claimPathSchema, parseClaimPath } from '../request/claim-path';
import { linkListOperations, type ListDeclaration } from './list-operations';
import { parseWith } from './parse-with';
import { scopeAlternatives } from './scope-requirements';

const ACTIONS: Record<string, Action> = { get: 'read', head: 'read', post: 'create', put: 'update', patch: 'update', delete: 'delete' };
const UNMAPPED_METHODS = ['options', 'trace'];

const STYLES: Record<Exclude<ParamLocation, 'body'>, readonly ParamStyle[]> = {
  path: ['simple', 'label', 'matrix'],
  query: ['form', 'spaceDelimited', 'pipeDelimited', 'deepObject'],
  header: ['simple'],
  cookie: ['form'],
};
const SCHEMA_TYPES: readonly SchemaType[] = ['integer', 'number', 'boolean', 'string', 'array', 'object'];

const documentSchema = z.object({
  openapi: z.string().regex(/^3\.[01]\.\d+$/, { error: 'openapi must be a 3.0.x or 3.1.x version string' }),
  paths: z.record(z.string().startsWith('/', { error: 'path keys must start with /' }), z.record(z.string(), z.unknown())),
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
});

const parameterSchema = z.object({
  name: z.string().min(1),
  in: z.enum(['path', 'query', 'header', 'cookie']),
  style: z.enum(['simple', 'label', 'matrix', 'form', 'spaceDelimited', 'pipeDelimited', 'deepObject']).optional(),
  explode: z.boolean().optional(),
  schema: z.record(z.string(), z.unknown()).optional(),
  'x-acl-binding': claimPathSchema('x-acl-binding').optional(),
});
type Parameter = z.infer<typeof parameterSchema>;

const securitySchema = z.array(z.record(z.string(), z.array(z.string())));

/**
 * Every operation of a ($ref-resolved) OpenAPI document, as the policy sees it. `requiredScopes`
 * are needed by every operation the scheme guards, on top of the scopes its requirements list.
 */
export function readOperations(doc: unknown, file: string, scheme: string, requiredScopes: readonly string[] = []): Record<string, OperationFacts> {
  const api = parseWith(documentSchema, doc, file, [], 'give an OpenAPI 3.0 or 3.1 document with a paths object');
  const operations: Record<string, OperationFacts> = {};
  const lists: ListDeclaration[] = [];
  // Operation key -> for each requirement with the bearer scheme, the other schemes it combines with (x-acl-list compares them).
  const beside = new Map<string, string[][]>();

  for (const [path, item] of Object.entries(api.paths)) {
    const shared = readParameters(item.parameters, file, ['paths', path, 'parameters']);
    for (const [method, raw] of Object.entries(item)) {
      const at = ['paths', path, method];
      const action = ACTIONS[method];
      if (action === undefined && !UNMAPPED_METHODS.includes(method)) continue;
      const operation = parseWith(z.record(z.string(), z.unknown()), raw, file, at, 'an operation must be an object');
      const securityAt = operation.security === undefined ? ['security'] : [...at, 'security'];
      const security = operation.security === undefined ? api.security ?? [] : parseWith(securitySchema, operation.security, file, securityAt, 'security is a list of requirement objects');
      const secured = security.some((requirement) => Object.hasOwn(requirement, scheme));
      if (action === undefined) {
        if (!secured) continue;
        throw new ConfigError(file, jsonPath(at), `${method.toUpperCase()} has no ACL action`, 'guard only GET, HEAD, POST, PUT, PATCH and DELETE operations with the bearer scheme');
      }
      const own = readParameters(operation.parameters, file, [...at, 'parameters']);
      const params = { ...shared, ...own, ...readBoundBody(operation.requestBody, file, [...at, 'requestBody']) };
      checkPathTemplate(path, params, file, at);
      const key = operationKey(method, path);
      if (operation['x-acl-list'] !== undefined) lists.push({ key, value: operation['x-acl-list'], at });
      beside.set(key, security.filter((requirement) => Object.hasOwn(requirement, scheme)).map((requirement) => Object.keys(requirement).filter((name) => name !== scheme)));
      operations[key] = {
        method: method.toUpperCase(),
        path,
        operation_id: typeof operation.operationId === 'string' ? operation.operationId : null,
        resource: path,
        action,
        secured,
        params,
        scopes: secured ? scopeAlternatives(security, scheme, requiredScopes, file, securityAt) : [],
      };
    }
  }
  linkListOperations(operations, lists, file, beside);
  return operations;
}

function readParameters(value: unknown, file: string, at: readonly (string | number)[]): Record<string, ParamSpec> {
  if (value === undefined) return {};
  const list = parseWith(z.array(z.unknown()), value, file, at, 'parameters is a list of parameter objects');
  const params: Record<string, ParamSpec> = {};
  list.forEach((entry, index) => {
    const param = parseWith(parameterSchema, entry, file, [...at, index], 'each parameter needs a name and in: path, query, header or cookie');
    const spec = toParamSpec(param, file, [...at, index]);
    params[paramKey(spec)] = spec;
  });
  return params;
}

/**
 * Properties of a JSON request body that carry `x-acl-binding` are owned like parameters (SvcApi
 * arguments of POST, PUT and PATCH methods are bodies). Unbound properties play no part.
 */
function readBoundBody(requestBody: unknown, file: string, at: readonly (string | number)[]): Record<string, ParamSpec> {
  const schema = (requestBody as { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } | undefined)?.content?.['application/json']?.schema;
  const params: Record<string, ParamSpec> = {};
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    const binding = (property as Record<string, unknown> | null)?.['x-acl-binding'];
    if (binding === undefined) continue;
    const bindingAt = [...at, 'content', 'application/json', 'schema', 'properties', name, 'x-acl-binding'];
    if (typeof binding !== 'string' || binding === '') throw new ConfigError(file, jsonPath(bindingAt), 'x-acl-binding must name a claim', 'write the name of the claim that holds the owned values');
    parseClaimPath(binding, file, bindingAt);
    const type = schemaType(property as Record<string, unknown>);
    const items = type === 'array' ? schemaType((property as { items?: Record<string, unknown> }).items) : null;
    const spec: ParamSpec = { name, in: 'body', style: 'form', explode: false, type, items, binding, owned: true };
    params[paramKey(spec)] = spec;
  }
  return params;
}

function toParamSpec(param: Parameter, file: string, at: readonly (string | number)[]): ParamSpec {
  const style = param.style ?? (param.in === 'path' || param.in === 'header' ? 'simple' : 'form');
  if (!STYLES[param.in].includes(style)) {
    throw new ConfigError(file, jsonPath([...at, 'style']), `style ${style} is not allowed for ${param.in} parameters`, `use one of: ${STYLES[param.in].join(', ')}`);
  }
  const type = schemaType(param.schema);
  return {
    name: param.name,
    in: param.in,
    style,
    explode: param.explode ?? style === 'form',
    type,
    items: type === 'array' ? schemaType(param.schema?.items as Record<string, unknown> | undefined) : null,
    binding: param['x-acl-binding'] ?? param.name,
    owned: param.in === 'path' || param['x-acl-binding'] !== undefined,
  };
}

/** 3.1 allows `type: [integer, "null"]`; a single non-null type is used, anything else compares as text. */
function schemaType(schema: Record<string, unknown> | undefined): SchemaType {
  const declared = schema?.type;
  const types = (Array.isArray(declared) ? declared : [declared]).filter((t) => t !== 'null' && t !== undefined);
  return types.length === 1 && SCHEMA_TYPES.includes(types[0] as SchemaType) ? (types[0] as SchemaType) : 'unknown';
}

function checkPathTemplate(path: string, params: Record<string, ParamSpec>, file: string, at: readonly string[]): void {
  const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  for (const name of templated) {
    if (!params[`path:${name}`]) {
      throw new ConfigError(file, jsonPath([...at, 'parameters']), `path template parameter {${name}} has no definition`, `add a parameter with name: ${name}, in: path, required: true`);
    }
  }
  for (const param of Object.values(params)) {
    if (param.in === 'path' && !templated.includes(param.name)) {
      throw new ConfigError(file, jsonPath([...at, 'parameters']), `path parameter ${param.name} is not in the path ${path}`, `rename it to one of the template names, or add {${param.name}} to the path`);
    }
  }
}

import { z } from 'zod';
import { ACTIONS, DATA_SCHEMA_VERSION, POSSESSIONS, type DataDocument } from '../policy/compile/data-document';

const globs = z.array(z.string());
const schemaType = z.enum(['integer', 'number', 'boolean', 'string', 'array', 'object', 'unknown']);

const param = z
  .object({
    name: z.string(),
    in: z.enum(['path', 'query', 'header', 'cookie', 'body']),
    style: z.enum(['simple', 'label', 'matrix', 'form', 'spaceDelimited', 'pipeDelimited', 'deepObject']),
    explode: z.boolean(),
    type: schemaType,
    items: schemaType.nullable(),
    binding: z.string(),
    owned: z.boolean(),
  })
  .strict();

const operation = z
  .object({
    method: z.string(),
    path: z.string(),
    operation_id: z.string().nullable(),
    resource: z.string(),
    action: z.enum(ACTIONS as [string, ...string[]]),
    secured: z.boolean(),
    params: z.record(z.string(), param),
    scopes: z.array(z.array(z.string())),
    grants: z.record(z.string(), z.partialRecord(z.enum(POSSESSIONS as [string, ...string[]]), globs)),
  })
  .strict();

/**
 * svcgate's data document as a bundle must hold it (the README's "Data document"): a bundle from
 * another version or with another shape is refused before it can decide anything.
 */
export const dataDocumentSchema = z
  .object({
    schema_version: z.literal(DATA_SCHEMA_VERSION, { error: `schema_version must be ${DATA_SCHEMA_VERSION}: build the bundle with this version of svcgate` }),
    revision: z.string(),
    scheme: z.string(),
    anonymous_default: z.boolean(),
    roles: z.record(z.string(), z.object({ extends: z.array(z.string()) }).strict()),
    operations: z.record(z.string(), operation),
  })
  .strict() as unknown as z.ZodType<DataDocument>;

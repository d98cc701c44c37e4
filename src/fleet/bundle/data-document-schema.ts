import { z } from 'zod';
import { ACTIONS, DATA_SCHEMA_VERSION, POSSESSIONS, type DataDocument } from '../../policy/compile/data-document';
import { EMPTY_CELL_CHARACTER } from '../../policy/compile/grant-table';
import { quoted } from '../../policy/compile/quoted-text';
import { TimeSlice } from './time-slice';

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

const operationSchema = z
  .object({
    method: z.string(),
    path: z.string(),
    operation_id: z.string().nullable(),
    resource: z.string(),
    action: z.enum(ACTIONS as [string, ...string[]]),
    secured: z.boolean(),
    params: z.record(z.string(), param),
    scopes: z.array(z.array(z.string())),
    grants: z.string(),
    unowned_reasons: z.record(z.string(), z.string()),
    list: z.object({ item: z.string(), params: z.record(z.string(), param) }).strict().optional(),
  })
  .strict();

const documentSchema = z
  .object({
    // Version 5 is version 6 without list operations, so bundles built before them still activate during an upgrade.
    schema_version: z.union([z.literal(DATA_SCHEMA_VERSION), z.literal(5)], {
      error: `schema_version must be ${DATA_SCHEMA_VERSION} (or 5, before list operations): build the bundle with this version of svcgate`,
    }),
    revision: z.string(),
    scheme: z.string(),
    anonymous_default: z.boolean(),
    roles: z.record(z.string(), z.object({ extends: z.array(z.string()) }).strict()),
    grant_offsets: z.record(z.string(), z.int().nonnegative()),
    grant_width: z.int().positive(),
    grant_sets: z.record(z.string(), z.partialRecord(z.enum(POSSESSIONS as [string, ...string[]]), globs)),
    operations: z.record(z.string(), z.unknown()),
  })
  .strict()
  .check((document) => {
    const { grant_offsets: offsets, grant_width: width, grant_sets: sets } = document.value;
    const columns = new Set(Object.values(offsets).map((offset) => offset / width));
    if (columns.size !== Object.keys(offsets).length || [...columns].some((column) => !Number.isInteger(column) || column >= columns.size)) {
      document.issues.push({ code: 'custom', input: offsets, path: ['grant_offsets'], message: `grant_offsets must start the roles' cells at 0, ${width}, ${2 * width}, ... (grant_width apart), each once` });
    }
    const wrong = Object.keys(sets).find((cell) => cell.length !== width || cell.includes(EMPTY_CELL_CHARACTER));
    if (wrong !== undefined) document.issues.push({ code: 'custom', input: sets, path: ['grant_sets', wrong], message: `a cell must be ${width} characters (grant_width), none of them ${EMPTY_CELL_CHARACTER}` });
  });

export type DataDocumentCheck = { success: true; data: DataDocument } | { success: false; problem: string };

/**
 * Checks that `value` is svcgate's data document as a bundle or OPA must hold it (docs/policy.md,
 * "The data document"), so that data from another version or of another shape is refused before it
 * can decide anything. Operations are checked one at a time with pauses between slices: an
 * API of thousands of operations takes a while to check, and requests are served meanwhile.
 */
export async function checkDataDocument(value: unknown): Promise<DataDocumentCheck> {
  const document = documentSchema.safeParse(value);
  if (!document.success) return failure(document.error, []);
  const slice = new TimeSlice();
  const operations: [string, unknown][] = [];
  const rowLength = Object.keys(document.data.grant_offsets).length * document.data.grant_width;
  for (const [key, operation] of Object.entries(document.data.operations)) {
    const checked = operationSchema.safeParse(operation);
    if (!checked.success) return failure(checked.error, ['operations', key]);
    if (checked.data.list !== undefined && document.data.schema_version !== DATA_SCHEMA_VERSION) {
      return { success: false, problem: `at ${shownPath(['operations', key, 'list'])}, a list operation needs schema_version ${DATA_SCHEMA_VERSION}` };
    }
    if (checked.data.grants.length !== rowLength) {
      return { success: false, problem: `at ${shownPath(['operations', key, 'grants'])}, a row must be ${rowLength} characters (grant_width for each role of grant_offsets), not ${checked.data.grants.length}` };
    }
    operations.push([key, checked.data]);
    await slice.pause();
  }
  // fromEntries defines each key, so that an operation named __proto__ stays a key.
  return { success: true, data: { ...document.data, operations: Object.fromEntries(operations) } as DataDocument };
}

function failure(error: z.ZodError, at: PropertyKey[]): DataDocumentCheck {
  const issue = error.issues[0]!;
  return { success: false, problem: `at ${shownPath([...at, ...issue.path])}, ${issue.message}` };
}

/** Where a problem is, as `operations["GET /x"].grants`: keys come from the bundle, so any that is not a plain name is quoted. */
function shownPath(segments: PropertyKey[]): string {
  if (segments.length === 0) return 'the top';
  return segments.map((segment, index) => (typeof segment === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(segment) ? `${index > 0 ? '.' : ''}${segment}` : `[${typeof segment === 'string' ? quoted(segment) : String(segment)}]`)).join('');
}

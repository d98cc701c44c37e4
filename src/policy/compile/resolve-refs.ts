import { resolve } from 'node:path';
import { ConfigError, jsonPath } from './config-error';
import { isPlainObject, readDocumentFile, type LoadedDocument } from './load-document';

type Segment = string | number;

interface Target {
  value: unknown;
  owner: LoadedDocument;
  /** Where the target sits in its own file, so errors inside it point there. */
  at: Segment[];
  /** Identifies the target across files, to notice a reference back into itself. */
  id: string;
}

/**
 * Returns a deep copy of the document with every `$ref` replaced by its target: local (`#/...`)
 * and relative files (`common.yaml#/...`). A reference back into itself (a recursive schema,
 * which is legal OpenAPI) becomes `{}` at the point of recursion instead of looping.
 */
export function resolveRefs(doc: LoadedDocument): unknown {
  const files = new Map<string, LoadedDocument>([[doc.file, doc]]);

  const walk = (node: unknown, owner: LoadedDocument, at: Segment[], stack: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((item, index) => walk(item, owner, [...at, index], stack));
    if (!isPlainObject(node)) return copyLeaf(node);
    const { $ref: ref, ...siblings } = node;
    const copy = Object.fromEntries(Object.entries(siblings).map(([key, value]) => [key, walk(value, owner, [...at, key], stack)]));
    if (!Object.hasOwn(node, '$ref')) return copy;

    const target = locate(ref, owner, [...at, '$ref'], files);
    if (stack.includes(target.id)) return {};
    const resolved = walk(target.value, target.owner, target.at, [...stack, target.id]);
    // OpenAPI 3.1 lets summary/description beside a $ref override the target's; 3.0 documents rarely have siblings.
    return isPlainObject(resolved) ? { ...resolved, ...copy } : resolved;
  };

  return walk(doc.value, doc, [], []);
}

/** YAML timestamps and binaries are objects too; copied whole so the result shares nothing with the input. */
function copyLeaf(value: unknown): unknown {
  if (value instanceof Date) return new Date(value.getTime());
  if (ArrayBuffer.isView(value)) return structuredClone(value);
  return value;
}

function locate(ref: unknown, owner: LoadedDocument, at: Segment[], files: Map<string, LoadedDocument>): Target {
  const where = jsonPath(at);
  if (typeof ref !== 'string') throw new ConfigError(owner.file, where, '$ref must be a string', 'write $ref: "#/components/..." or "other.yaml#/..."');
  const hash = ref.indexOf('#');
  const filePart = hash === -1 ? ref : ref.slice(0, hash);
  const pointer = hash === -1 ? '' : ref.slice(hash + 1);
  if (/^[a-z][a-z0-9+.-]*:/i.test(filePart)) {
    throw new ConfigError(owner.file, where, `$ref ${ref} points outside the file system`, 'bundle the document into local files; svcgate does not fetch over the network');
  }
  if (pointer !== '' && !pointer.startsWith('/')) {
    throw new ConfigError(owner.file, where, `$ref ${ref} has a fragment that is not a JSON pointer`, 'write the fragment as a JSON pointer, e.g. "#/components/schemas/Name"');
  }
  const target = filePart === '' ? owner : loadReferenced(resolve(owner.dir ?? process.cwd(), percentDecode(filePart)), ref, owner, where, files);

  let value: unknown = target.value;
  const path: Segment[] = [];
  for (const segment of pointerSegments(pointer)) {
    if (!hasChild(value, segment)) {
      throw new ConfigError(owner.file, where, `$ref ${ref} points at nothing`, 'point it at an existing object, e.g. "#/components/schemas/Name"');
    }
    path.push(Array.isArray(value) ? Number(segment) : segment);
    value = (value as Record<string, unknown>)[segment];
  }
  return { value, owner: target, at: path, id: `${target.file}#${JSON.stringify(path)}` };
}

/** Arrays are indexed by digits only: `#/list/length` must not find the length. */
function hasChild(value: unknown, segment: string): boolean {
  if (Array.isArray(value)) return /^(0|[1-9]\d*)$/.test(segment) && Number(segment) < value.length;
  return isPlainObject(value) && Object.hasOwn(value, segment);
}

function loadReferenced(file: string, ref: string, owner: LoadedDocument, where: string, files: Map<string, LoadedDocument>): LoadedDocument {
  const cached = files.get(file);
  if (cached) return cached;
  try {
    const loaded = readDocumentFile(file, 'referenced document');
    files.set(file, loaded);
    return loaded;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(owner.file, where, `$ref ${ref}: ${error.problem} in ${error.file}`, error.fix);
  }
}

/** JSON pointer (RFC 6901) in a URI fragment: percent-decoded first, then ~1 is / and ~0 is ~. */
function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return percentDecode(pointer)
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A stray `%` (say in `/discount/10%`) is kept as written rather than rejected. */
function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

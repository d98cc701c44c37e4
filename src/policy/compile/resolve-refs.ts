import { ConfigError, jsonPath } from './config-error';
import { MAX_DOCUMENT_BYTES, MAX_DOCUMENT_NODES, MAX_RESOLVED_DEPTH } from './document-limits';
import { isPlainObject, readDocumentFile, type LoadedDocument } from './load-document';
import { ReferenceRoot } from './reference-root';

type Segment = string | number;

/** Where a value sits in its file, parent first: kept as links and spelled out only for an error. */
type Trail = { parent: Trail; segment: Segment } | null;

/** A value with its references resolved, and how many values it holds counted as if every shared part were copied. */
interface Resolution {
  value: unknown;
  size: number;
}

interface Target {
  value: unknown;
  owner: LoadedDocument;
  at: Trail;
}

export interface ResolveRefsOptions {
  /** The folder file references must stay inside; default the document's folder (the working directory for an object). */
  refRoot?: string;
}

/**
 * Returns the document with every `$ref` replaced by its target: local (`#/...`) and relative
 * files (`common.yaml#/...`, inside the document's folder or `refRoot`). Each object of the input
 * is resolved once, and every `$ref` to it, or YAML alias of it, gets that same resolved object:
 * the result is as large as the input, however often a part is referred to. A reference back into
 * a target being resolved (a recursive schema, which is legal OpenAPI), or an object met again
 * inside itself, is `{}` there, and what holds it is shared as it is. The result shares nothing
 * with the input (siblings of a `$ref` make a new object) and is frozen, since it may be shared.
 * Its size is counted as it is built, as if every shared part were copied where it is used, and
 * it is refused (ConfigError) past the limits of document-limits.ts: any walk of it, however it
 * treats shared parts, is bounded.
 */
export function resolveRefs(doc: LoadedDocument, options: ResolveRefsOptions = {}): unknown {
  const root = ReferenceRoot.of(doc.dir, options.refRoot);
  const files = new Map<string, LoadedDocument>([[doc.file, doc]]);
  let bytes = doc.bytes;
  const resolved = new Map<object, Resolution>();
  const resolving = new Set<object>();

  const walk = (node: unknown, owner: LoadedDocument, at: Trail, depth: number): Resolution => {
    if (!Array.isArray(node) && !isPlainObject(node)) return { value: copyLeaf(node), size: 1 };
    const done = resolved.get(node);
    if (done !== undefined) return done;
    // A recursive schema: by a $ref back into its target, or, in a document that @oas-tools/core
    // dereferenced (json-schema-ref-parser keeps recursion as an object that holds itself), as it is.
    if (resolving.has(node)) return { value: Object.freeze({}), size: 1 };
    if (depth >= MAX_RESOLVED_DEPTH) {
      throw new ConfigError(owner.file, jsonPath(segmentsOf(at)), `the document with its $refs followed is nested deeper than ${MAX_RESOLVED_DEPTH} levels (the limit), each $ref counting as one`, 'shorten the chains of $refs that lead here');
    }
    resolving.add(node);
    let result: Resolution;
    if (Array.isArray(node)) {
      const items = node.map((item, index) => walk(item, owner, { parent: at, segment: index }, depth + 1));
      result = { value: items.map((item) => item.value), size: sizeOf(items) };
    } else {
      const { $ref: ref, ...siblings } = node;
      const entries = Object.entries(siblings).map(([key, value]) => [key, walk(value, owner, { parent: at, segment: key }, depth + 1)] as const);
      // fromEntries defines each key, so that a key named __proto__ stays a key.
      const copy = Object.fromEntries(entries.map(([key, child]) => [key, child.value]));
      result = { value: copy, size: sizeOf(entries.map(([, child]) => child)) };
      if (Object.hasOwn(node, '$ref')) {
        const target = locate(ref, owner, { parent: at, segment: '$ref' });
        const shared = walk(target.value, target.owner, target.at, depth + 1);
        // OpenAPI 3.1 lets summary/description beside a $ref override the target's; 3.0 documents
        // rarely have siblings. The size counts both whole: at most what the object holds.
        if (!isPlainObject(shared.value) || entries.length === 0) result = shared;
        else result = { value: { ...shared.value, ...copy }, size: shared.size + result.size - 1 };
      }
    }
    resolving.delete(node);
    if (result.size > MAX_DOCUMENT_NODES) {
      throw new ConfigError(
        owner.file,
        jsonPath(segmentsOf(at)),
        `this value, with its $refs resolved, holds more than ${MAX_DOCUMENT_NODES} values (the limit), counting each use of a $ref or YAML alias in full`,
        'make it smaller: a $ref or YAML alias used many times, or inside another that is, repeats what it names each time; write the parts that differ instead',
      );
    }
    Object.freeze(result.value);
    resolved.set(node, result);
    return result;
  };

  const locate = (ref: unknown, owner: LoadedDocument, at: Trail): Target => {
    const where = jsonPath(segmentsOf(at));
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
    const target = filePart === '' ? owner : referencedFile(root.fileOf(percentDecode(filePart), owner.dir ?? process.cwd(), ref, owner.file, where), ref, owner, where);

    let value: unknown = target.value;
    let path: Trail = null;
    for (const segment of pointerSegments(pointer)) {
      if (!hasChild(value, segment)) {
        throw new ConfigError(owner.file, where, `$ref ${ref} points at nothing`, 'point it at an existing object, e.g. "#/components/schemas/Name"');
      }
      path = { parent: path, segment: Array.isArray(value) ? Number(segment) : segment };
      value = (value as Record<string, unknown>)[segment];
    }
    return { value, owner: target, at: path };
  };

  /** Each file is read once, and all of them together within MAX_DOCUMENT_BYTES. */
  const referencedFile = (file: string, ref: string, owner: LoadedDocument, where: string): LoadedDocument => {
    const cached = files.get(file);
    if (cached) return cached;
    let loaded: LoadedDocument;
    try {
      loaded = readDocumentFile(file, 'referenced document');
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw new ConfigError(owner.file, where, `$ref ${ref}: ${error.problem} in ${error.file}`, error.fix);
    }
    bytes += loaded.bytes;
    if (bytes > MAX_DOCUMENT_BYTES) {
      throw new ConfigError(owner.file, where, `$ref ${ref}: with ${file} the document and the files it refers to hold ${bytes} bytes, over the limit of ${MAX_DOCUMENT_BYTES} bytes together`, 'refer to fewer or smaller files');
    }
    files.set(file, loaded);
    return loaded;
  };

  return walk(doc.value, doc, null, 0).value;
}

/** A container's size: itself and its children's, each child counted in full however often it is shared. */
function sizeOf(children: readonly Resolution[]): number {
  let size = 1;
  for (const child of children) size += child.size;
  return size;
}

function segmentsOf(trail: Trail): Segment[] {
  const segments: Segment[] = [];
  for (let link = trail; link !== null; link = link.parent) segments.push(link.segment);
  return segments.reverse();
}

/** YAML timestamps and binaries are objects too; copied whole so the result shares nothing with the input. */
function copyLeaf(value: unknown): unknown {
  if (value instanceof Date) return new Date(value.getTime());
  if (ArrayBuffer.isView(value)) return structuredClone(value);
  return value;
}

/** Arrays are indexed by digits only: `#/list/length` must not find the length. */
function hasChild(value: unknown, segment: string): boolean {
  if (Array.isArray(value)) return /^(0|[1-9]\d*)$/.test(segment) && Number(segment) < value.length;
  return isPlainObject(value) && Object.hasOwn(value, segment);
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

import { quoted } from '../quoted-text';
import { ConfigError, jsonPath } from '../config-error';
import { MAX_DOCUMENT_BYTES, MAX_DOCUMENT_NODES, MAX_RESOLVED_DEPTH } from './document-limits';
import { isPlainObject, readDocumentFile, type LoadedDocument } from './load-document';
import { ReferenceRoot, type ReferenceSite } from './reference-root';

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
 * the result is as large as the input, however often a part is referred to, except that the
 * siblings of a `$ref` (OpenAPI 3.1's summary and description) make a new object holding the
 * target's keys and theirs. The result shares nothing with the input and is frozen, since it
 * may be shared.
 *
 * Recursion is cut, not followed: a `$ref` back into an object still being resolved (a recursive
 * schema, which is legal OpenAPI), or an object met again inside itself (as @oas-tools/core
 * dereferences one), is `{}` there. Since each object is resolved once, the first time the walk
 * meets it (in the order the document is written, each `$ref` followed where it stands), every
 * other use gets it as it was cut then: for schemas A and B that refer to each other, met at A
 * first, A's `b` is B and B's `a` is `{}`, wherever B is used, also directly.
 *
 * The values of the result are counted as it is built, as if every shared part were copied where
 * it is used, and the walk stops as soon as the count passes MAX_DOCUMENT_NODES (a ConfigError
 * naming the innermost value that holds more by itself, else where the count passed it): the
 * work done, copies included, is bounded by that limit, and so is any later walk of the result,
 * however it treats shared parts.
 */
export function resolveRefs(doc: LoadedDocument, options: ResolveRefsOptions = {}): unknown {
  const root = ReferenceRoot.of(doc.dir, options.refRoot);
  const files = new Map<string, LoadedDocument>([[doc.file, doc]]);
  let bytes = doc.bytes;
  const resolved = new Map<object, Resolution>();
  const resolving = new Set<object>();
  /** Values of the result met so far, each shared part counted in full at each use. */
  let expanded = 0;

  const count = (values: number): void => {
    expanded += values;
    if (expanded > MAX_DOCUMENT_NODES) throw new OverLimit();
  };

  const walk = (node: unknown, owner: LoadedDocument, at: Trail, depth: number): Resolution => {
    if (!Array.isArray(node) && !isPlainObject(node)) {
      count(1);
      return { value: copyLeaf(node), size: 1 };
    }
    const done = resolved.get(node);
    if (done !== undefined) {
      count(done.size);
      return done;
    }
    // A recursive schema: by a $ref back into its target, or, in a document that @oas-tools/core
    // dereferenced (json-schema-ref-parser keeps recursion as an object that holds itself), as it is.
    if (resolving.has(node)) {
      count(1);
      return { value: Object.freeze({}), size: 1 };
    }
    if (depth >= MAX_RESOLVED_DEPTH) {
      throw new ConfigError(owner.file, jsonPath(segmentsOf(at)), `the document with its $refs followed is nested deeper than ${MAX_RESOLVED_DEPTH} levels (the limit), each $ref counting as one`, 'shorten the chains of $refs that lead here');
    }
    const start = expanded;
    resolving.add(node);
    let result: Resolution;
    try {
      result = Array.isArray(node) ? resolveList(node, owner, at, depth) : resolveObject(node, owner, at, depth);
    } catch (error) {
      if (error instanceof OverLimit) error.claim(owner.file, at, depth, expanded - start);
      throw error;
    }
    resolving.delete(node);
    Object.freeze(result.value);
    resolved.set(node, result);
    return result;
  };

  const resolveList = (node: unknown[], owner: LoadedDocument, at: Trail, depth: number): Resolution => {
    count(1);
    const items = node.map((item, index) => walk(item, owner, { parent: at, segment: index }, depth + 1));
    return { value: items.map((item) => item.value), size: sizeOf(items) };
  };

  const resolveObject = (node: Record<string, unknown>, owner: LoadedDocument, at: Trail, depth: number): Resolution => {
    const { $ref: ref, ...siblings } = node;
    const isReference = Object.hasOwn(node, '$ref');
    // A $ref object gives way to its target: the target and the siblings are counted, not the object.
    if (!isReference) count(1);
    const entries = Object.entries(siblings).map(([key, value]) => [key, walk(value, owner, { parent: at, segment: key }, depth + 1)] as const);
    // fromEntries defines each key, so that a key named __proto__ stays a key.
    const copy = Object.fromEntries(entries.map(([key, child]) => [key, child.value]));
    const own = sizeOf(entries.map(([, child]) => child));
    if (!isReference) return { value: copy, size: own };
    const target = locate(ref, owner, { parent: at, segment: '$ref' });
    const shared = walk(target.value, target.owner, target.at, depth + 1);
    // OpenAPI 3.1 lets summary/description beside a $ref override the target's; 3.0 documents
    // rarely have siblings. Both are counted whole (at most what the object holds), before the
    // copy is made, so the copies too are bounded by the limit.
    if (isPlainObject(shared.value) && entries.length > 0) return { value: { ...shared.value, ...copy }, size: shared.size + own - 1 };
    // Siblings beside a target that is no object are dropped, and no longer counted.
    expanded -= own - 1;
    return shared;
  };

  /** Targets by the file that refers and the reference's text: a reference written many times is read once. */
  const located = new Map<LoadedDocument, Map<string, Target>>();

  const locate = (ref: unknown, owner: LoadedDocument, at: Trail): Target => {
    if (typeof ref !== 'string') throw new ConfigError(owner.file, jsonPath(segmentsOf(at)), '$ref must be a string', 'write $ref: "#/components/..." or "other.yaml#/..."');
    let targets = located.get(owner);
    if (targets === undefined) located.set(owner, (targets = new Map()));
    const known = targets.get(ref);
    if (known !== undefined) return known;
    const target = follow(ref, owner, at);
    targets.set(ref, target);
    return target;
  };

  const follow = (ref: string, owner: LoadedDocument, at: Trail): Target => {
    const site = new ReferenceAt(ref, owner.file, at);
    const hash = ref.indexOf('#');
    const filePart = hash === -1 ? ref : ref.slice(0, hash);
    const pointer = hash === -1 ? '' : ref.slice(hash + 1);
    if (/^[a-z][a-z0-9+.-]*:/i.test(filePart)) {
      throw site.refuse(`$ref ${site.shown} points outside the file system`, 'bundle the document into local files; svcgate does not fetch over the network');
    }
    if (pointer !== '' && !pointer.startsWith('/')) {
      throw site.refuse(`$ref ${site.shown} has a fragment that is not a JSON pointer`, 'write the fragment as a JSON pointer, e.g. "#/components/schemas/Name"');
    }
    const target = filePart === '' ? owner : referencedFile(root.fileOf(percentDecode(filePart), owner.dir ?? process.cwd(), site), site);

    let value: unknown = target.value;
    let path: Trail = null;
    for (const segment of pointerSegments(pointer)) {
      if (!hasChild(value, segment)) throw site.refuse(`$ref ${site.shown} points at nothing`, 'point it at an existing object, e.g. "#/components/schemas/Name"');
      path = { parent: path, segment: Array.isArray(value) ? Number(segment) : segment };
      value = (value as Record<string, unknown>)[segment];
    }
    return { value, owner: target, at: path };
  };

  /** Each file is read once, and all of them together within MAX_DOCUMENT_BYTES. */
  const referencedFile = (file: string, site: ReferenceSite): LoadedDocument => {
    const cached = files.get(file);
    if (cached) return cached;
    let loaded: LoadedDocument;
    try {
      loaded = readDocumentFile(file, 'referenced document');
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw site.refuse(`$ref ${site.shown}: ${error.problem} in ${quoted(error.file)}`, error.fix);
    }
    bytes += loaded.bytes;
    if (bytes > MAX_DOCUMENT_BYTES) {
      throw site.refuse(`$ref ${site.shown}: with ${quoted(file)} the document and the files it refers to hold ${bytes} bytes, over the limit of ${MAX_DOCUMENT_BYTES} bytes together`, 'refer to fewer or smaller files');
    }
    files.set(file, loaded);
    return loaded;
  };

  try {
    return walk(doc.value, doc, null, 0).value;
  } catch (error) {
    if (!(error instanceof OverLimit)) throw error;
    const [place, problem] = error.part
      ? [error.part, `this value, with its $refs resolved, holds more than ${MAX_DOCUMENT_NODES} values (the limit)`]
      : [error.stop ?? { file: doc.file, at: null }, `the document, with its $refs resolved, passes ${MAX_DOCUMENT_NODES} values (the limit) here`];
    throw new ConfigError(
      place.file,
      jsonPath(segmentsOf(place.at)),
      `${problem}, counting each use of a $ref or YAML alias in full`,
      'make it smaller: a $ref or YAML alias used many times, or inside another that is, repeats what it names each time; write the parts that differ instead',
    );
  }
}

/**
 * Thrown where the count passes MAX_DOCUMENT_NODES, and given places on its way out: `stop`, the
 * innermost value being resolved then, and `part`, the innermost one below the document's top
 * that by itself holds more than the limit, if any. The error names `part`, else `stop`.
 */
class OverLimit {
  stop: { file: string; at: Trail } | undefined;
  part: { file: string; at: Trail } | undefined;

  claim(file: string, at: Trail, depth: number, held: number): void {
    this.stop ??= { file, at };
    if (this.part === undefined && depth > 0 && held > MAX_DOCUMENT_NODES) this.part = { file, at };
  }
}

/** A `$ref` being followed: its JSON path and its quoted text are made only for an error. */
class ReferenceAt implements ReferenceSite {
  constructor(
    private readonly ref: string,
    private readonly file: string,
    private readonly at: Trail,
  ) {}

  get shown(): string {
    return quoted(this.ref);
  }

  refuse(problem: string, fix: string): ConfigError {
    return new ConfigError(this.file, jsonPath(segmentsOf(this.at)), problem, fix);
  }
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

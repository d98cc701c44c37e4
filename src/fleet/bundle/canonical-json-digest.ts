import type { Hash } from 'node:crypto';
import { goString } from './canonical-json';
import type { TimeSlice } from './time-slice';

/** Go's decoder refuses JSON nested deeper than this, so OPA signs nothing deeper. */
const MAX_DEPTH = 10_000;
/** How many tokens are read or written between two looks at the time slice. */
const STEPS_PER_CHECK = 4096;

const enum Kind {
  /** A number, true, false or null: written as its bytes. */
  Scalar,
  /** A string of printable ASCII without escapes: written as its bytes. */
  PlainString,
  /** Any other string: decoded, then written as Go's encoder writes it. */
  String,
  EmptyArray,
  EmptyObject,
  Array,
  Object,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
/** true, false and null by their first byte. */
const LITERALS: Readonly<Record<number, Buffer>> = Object.fromEntries(['true', 'false', 'null'].map((literal) => [literal.charCodeAt(0), Buffer.from(literal, 'ascii')]));
/** The characters JSON allows after a backslash, but `u`. */
const ESCAPES = [...'"\\/bfnrt'].map((char) => char.charCodeAt(0));

/**
 * The JSON file's tokens in document order, in typed arrays (a few bytes per token, where a
 * parsed value costs an object or a string each): a token's kind, where its bytes start and
 * end, and for a container the index of the first token after it.
 */
class Tape {
  length = 0;
  kinds = new Uint8Array(1024);
  starts = new Int32Array(1024);
  ends = new Int32Array(1024);

  push(kind: Kind, start: number, end: number): number {
    if (this.length === this.kinds.length) this.grow();
    this.kinds[this.length] = kind;
    this.starts[this.length] = start;
    this.ends[this.length] = end;
    return this.length++;
  }

  /** The index of the token after the value at `index` (its whole subtree for a container). */
  after(index: number): number {
    return this.kinds[index]! >= Kind.Array ? this.ends[index]! : index + 1;
  }

  private grow(): void {
    const kinds = new Uint8Array(this.kinds.length * 2);
    const starts = new Int32Array(kinds.length);
    const ends = new Int32Array(kinds.length);
    kinds.set(this.kinds);
    starts.set(this.starts);
    ends.set(this.ends);
    this.kinds = kinds;
    this.starts = starts;
    this.ends = ends;
  }
}

/**
 * Writes the JSON file `bytes` into `hash` in OPA's canonical form: what OPA hashes for a JSON file
 * of a signed bundle (object keys sorted by their UTF-8 bytes, the last of a repeated key kept,
 * no spaces, strings as Go's encoder writes them without HTML escaping, and numbers exactly as
 * written, since OPA reads them as json.Number). False when the bytes are not JSON, or are nested
 * deeper than Go reads. Not JSON.parse: that rewrites numbers (`2.50` becomes `2.5`, and a bundle
 * `opa build` signed would not verify), builds an object per value, and runs in one step; this
 * reads the bytes once into a tape of tokens, writes them in order with explicit stacks (no
 * recursion to overflow), and yields to the event loop through `slice`.
 */
export async function writeCanonicalDigest(bytes: Uint8Array, hash: Hash, slice: TimeSlice): Promise<boolean> {
  const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tape = await tokenize(source, slice);
  if (tape === undefined) return false;
  await write(source, tape, new HashWriter(hash), slice);
  return true;
}

async function tokenize(source: Buffer, slice: TimeSlice): Promise<Tape | undefined> {
  const tape = new Tape();
  /** The tape indices of the open containers, innermost last. */
  const open: number[] = [];
  let at = skipWhitespace(source, 0);
  let steps = 0;
  for (;;) {
    if (++steps % STEPS_PER_CHECK === 0) await slice.pause();
    // A value starts at `at`.
    const byte = source[at];
    if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      const object = byte === OPEN_OBJECT;
      at = skipWhitespace(source, at + 1);
      if (source[at] === (object ? CLOSE_OBJECT : CLOSE_ARRAY)) {
        tape.push(object ? Kind.EmptyObject : Kind.EmptyArray, 0, 0);
        at += 1;
      } else {
        if (open.length === MAX_DEPTH) return undefined;
        open.push(tape.push(object ? Kind.Object : Kind.Array, 0, 0));
        if (object) {
          const value = key(source, at, tape);
          if (value === undefined) return undefined;
          at = value;
        }
        continue;
      }
    } else if (byte === QUOTE) {
      const end = string(source, at, tape);
      if (end === undefined) return undefined;
      at = end;
    } else {
      const end = scalarEnd(source, at);
      if (end === undefined) return undefined;
      tape.push(Kind.Scalar, at, end);
      at = end;
    }
    // A value is complete: the next one follows a comma, or it closes containers.
    for (;;) {
      at = skipWhitespace(source, at);
      const container = open[open.length - 1];
      if (container === undefined) return at === source.length ? tape : undefined;
      const object = tape.kinds[container] === Kind.Object;
      if (source[at] === COMMA) {
        at = skipWhitespace(source, at + 1);
        if (object) {
          const value = key(source, at, tape);
          if (value === undefined) return undefined;
          at = value;
        }
        break;
      }
      if (source[at] !== (object ? CLOSE_OBJECT : CLOSE_ARRAY)) return undefined;
      tape.ends[open.pop()!] = tape.length;
      at += 1;
    }
  }
}

/** A member's key and its colon, from `at`; returns where the value starts. */
function key(source: Buffer, at: number, tape: Tape): number | undefined {
  if (source[at] !== QUOTE) return undefined;
  const end = string(source, at, tape);
  if (end === undefined) return undefined;
  const colon = skipWhitespace(source, end);
  return source[colon] === COLON ? skipWhitespace(source, colon + 1) : undefined;
}

/** Puts the string whose opening quote is at `at` on the tape (the bytes between its quotes); returns the index after its closing quote. */
function string(source: Buffer, at: number, tape: Tape): number | undefined {
  let plain = true;
  for (let i = at + 1; i < source.length; i++) {
    const byte = source[i]!;
    if (byte === QUOTE) {
      tape.push(plain ? Kind.PlainString : Kind.String, at + 1, i);
      return i + 1;
    }
    if (byte < 0x20) return undefined;
    if (byte === BACKSLASH) {
      const escape = escapeLength(source, i + 1);
      if (escape === undefined) return undefined;
      i += escape;
    }
    // Escapes are decoded, and characters beyond ASCII re-encoded (Go escapes U+2028), by `decoded`.
    if (byte === BACKSLASH || byte >= 0x80) plain = false;
  }
  return undefined;
}

/** The length of a valid escape after a backslash at `at - 1` (`\n`, `\u00e9`...), checked here so that decoding it cannot fail. */
function escapeLength(source: Buffer, at: number): number | undefined {
  const byte = source[at];
  if (byte === 0x75 /* u */) {
    for (let i = at + 1; i <= at + 4; i++) if (!isHexDigit(source[i])) return undefined;
    return 5;
  }
  return byte !== undefined && ESCAPES.includes(byte) ? 1 : undefined;
}

function isHexDigit(byte: number | undefined): boolean {
  return isDigit(byte) || (byte !== undefined && ((byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)));
}

/** The value of a string token that is not plain (its escapes were checked when it was read). */
function decoded(source: Buffer, start: number, end: number): string {
  // Invalid UTF-8 becomes U+FFFD, as in Go's decoder; JSON.parse decodes the escapes.
  return JSON.parse(source.toString('utf8', start - 1, end + 1)) as string;
}

/** Where the number or literal at `at` ends (JSON's grammar for numbers); undefined when there is none. */
function scalarEnd(source: Buffer, at: number): number | undefined {
  const literal = LITERALS[source[at]!];
  if (literal !== undefined) return literal.every((byte, offset) => source[at + offset] === byte) ? at + literal.length : undefined;
  let i = at;
  if (source[i] === 0x2d /* - */) i++;
  if (source[i] === 0x30 /* 0 */) i++;
  else if (isDigit(source[i])) while (isDigit(source[i])) i++;
  else return undefined;
  if (source[i] === 0x2e /* . */) {
    if (!isDigit(source[++i])) return undefined;
    while (isDigit(source[i])) i++;
  }
  if (source[i] === 0x65 || source[i] === 0x45 /* e E */) {
    i++;
    if (source[i] === 0x2b || source[i] === 0x2d /* + - */) i++;
    if (!isDigit(source[i])) return undefined;
    while (isDigit(source[i])) i++;
  }
  return i;
}

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39;
}

function skipWhitespace(source: Buffer, at: number): number {
  let i = at;
  for (let byte = source[i]; byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d; byte = source[++i]);
  return i;
}

/** A container being written: for an object, its key tokens in the order written; the next value; whether one was written. */
interface Frame {
  /** Undefined for an array: its values are read off the tape one after another, up to `end`. */
  members: number[] | undefined;
  next: number;
  end: number;
  written: boolean;
}

async function write(source: Buffer, tape: Tape, out: HashWriter, slice: TimeSlice): Promise<void> {
  const open: Frame[] = [];
  let index: number | undefined = 0;
  let steps = 0;
  for (;;) {
    if (++steps % STEPS_PER_CHECK === 0) await slice.pause();
    if (index !== undefined) {
      const kind = tape.kinds[index]! as Kind;
      if (kind === Kind.Array) {
        out.byte(OPEN_ARRAY);
        open.push({ members: undefined, next: index + 1, end: tape.ends[index]!, written: false });
      } else if (kind === Kind.Object) {
        out.byte(OPEN_OBJECT);
        const members = await sortedMembers(source, tape, index, slice);
        open.push({ members, next: 0, end: members.length, written: false });
      } else {
        writeToken(source, tape, index, out);
      }
      index = undefined;
    }
    const frame = open[open.length - 1];
    if (frame === undefined) break;
    if (frame.next === frame.end) {
      out.byte(frame.members === undefined ? CLOSE_ARRAY : CLOSE_OBJECT);
      open.pop();
      continue;
    }
    if (frame.written) out.byte(COMMA);
    frame.written = true;
    if (frame.members === undefined) {
      index = frame.next;
      frame.next = tape.after(index);
    } else {
      const keyIndex = frame.members[frame.next++]!;
      writeToken(source, tape, keyIndex, out);
      out.byte(COLON);
      index = keyIndex + 1;
    }
  }
  out.flush();
}

/** The key tokens of the object at `index`, sorted by their UTF-8 bytes; of a repeated key, the last. */
async function sortedMembers(source: Buffer, tape: Tape, index: number, slice: TimeSlice): Promise<number[]> {
  const end = tape.ends[index]!;
  if (tape.after(index + 2) === end) return [index + 1];
  // Each key as a latin1 string of its UTF-8 bytes: JavaScript compares those in byte order, as Go does.
  const keys: string[] = [];
  const members: number[] = [];
  for (let member = index + 1; member < end; member = tape.after(member + 1)) {
    if (members.length % STEPS_PER_CHECK === STEPS_PER_CHECK - 1) await slice.pause();
    const start = tape.starts[member]!;
    const stop = tape.ends[member]!;
    keys.push(tape.kinds[member] === Kind.PlainString ? source.toString('latin1', start, stop) : Buffer.from(decoded(source, start, stop), 'utf8').toString('latin1'));
    members.push(member);
  }
  const order = await sortedPositions(keys, slice);
  const sorted: number[] = [];
  for (let at = 0; at < order.length; at++) {
    if (at % STEPS_PER_CHECK === STEPS_PER_CHECK - 1) await slice.pause();
    const position = order[at]!;
    if (at === order.length - 1 || keys[order[at + 1]!] !== keys[position]) sorted.push(members[position]!);
  }
  return sorted;
}

/** An object this large is sorted in slices; smaller ones at once. */
const SLICED_SORT_FROM = 4096;

/**
 * Positions 0..n-1 ordered by `keys`, equal keys in their order (stable). A large object (a
 * million members fit in a few MiB) is merge-sorted bottom-up, yielding between merges, so that
 * sorting it does not hold the event loop.
 */
async function sortedPositions(keys: string[], slice: TimeSlice): Promise<ArrayLike<number>> {
  const count = keys.length;
  if (count < SLICED_SORT_FROM) return keys.map((_, position) => position).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : a - b));
  // A plain loop: Int32Array.from(keys.keys()) goes through the iterator, 0.4 s for 2.4 million keys in one step.
  let from = new Int32Array(count);
  for (let position = 0; position < count; position++) from[position] = position;
  let to = new Int32Array(count);
  for (let width = 1; width < count; width *= 2) {
    for (let left = 0; left < count; left += 2 * width) {
      const middle = Math.min(left + width, count);
      const right = Math.min(left + 2 * width, count);
      let i = left;
      let j = middle;
      let k = left;
      while (i < middle && j < right) {
        to[k++] = keys[from[j]!]! < keys[from[i]!]! ? from[j++]! : from[i++]!;
        // Within a merge too: the last merges of a million keys are each a long run.
        if (k % STEPS_PER_CHECK === 0) await slice.pause();
      }
      while (i < middle) to[k++] = from[i++]!;
      while (j < right) to[k++] = from[j++]!;
      await slice.pause();
    }
    [from, to] = [to, from];
  }
  return from;
}

function writeToken(source: Buffer, tape: Tape, index: number, out: HashWriter): void {
  const start = tape.starts[index]!;
  const end = tape.ends[index]!;
  switch (tape.kinds[index]! as Kind) {
    case Kind.Scalar:
      out.bytes(source, start, end);
      return;
    case Kind.PlainString:
      out.byte(QUOTE);
      out.bytes(source, start, end);
      out.byte(QUOTE);
      return;
    case Kind.String:
      out.text(goString(decoded(source, start, end)));
      return;
    case Kind.EmptyArray:
      out.byte(OPEN_ARRAY);
      out.byte(CLOSE_ARRAY);
      return;
    default:
      out.byte(OPEN_OBJECT);
      out.byte(CLOSE_OBJECT);
  }
}

/** Output gathered in a 64 KiB buffer: millions of small updates cost more than the hashing itself. */
class HashWriter {
  private readonly buffer = Buffer.allocUnsafe(64 * 1024);
  private used = 0;

  constructor(private readonly hash: Hash) {}

  byte(value: number): void {
    if (this.used === this.buffer.length) this.flush();
    this.buffer[this.used++] = value;
  }

  bytes(source: Buffer, start: number, end: number): void {
    if (end - start <= 16 && end - start <= this.buffer.length - this.used) {
      // A short token is copied here: a call into Buffer#copy costs more than the bytes.
      for (let i = start; i < end; i++) this.buffer[this.used++] = source[i]!;
      return;
    }
    if (end - start > this.buffer.length - this.used) {
      this.flush();
      if (end - start > this.buffer.length) {
        this.hash.update(source.subarray(start, end));
        return;
      }
    }
    this.used += source.copy(this.buffer, this.used, start, end);
  }

  text(value: string): void {
    const encoded = Buffer.from(value, 'utf8');
    this.bytes(encoded, 0, encoded.length);
  }

  flush(): void {
    this.hash.update(this.buffer.subarray(0, this.used));
    this.used = 0;
  }
}

/** One line of a stream: its 1-based number and its bytes (without the newline), or `tooLong` when it was cut. */
export type Line = { number: number; bytes: Buffer } | { number: number; tooLong: true };

const NEWLINE = 0x0a;
const NEWLINES = Buffer.alloc(4096, NEWLINE);

/**
 * Splits a byte stream into lines, each held whole only up to `maxBytes`: a longer line is read
 * past (its bytes dropped as they come) and given as `tooLong`, so a file of one endless line
 * costs `maxBytes` of memory, not its size. Empty lines are counted but not given: a gigabyte
 * of newlines costs a pass over its bytes, not a billion lines.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private held = 0;
  private tooLong = false;
  private number = 0;

  constructor(private readonly maxBytes: number) {}

  /** The lines the chunk ends. */
  push(chunk: Buffer): Line[] {
    const lines: Line[] = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.take(chunk.subarray(start, end));
      const line = this.finished();
      if (line !== undefined) lines.push(line);
      start = end + 1;
      if (chunk[start] === NEWLINE) start = this.emptyLines(chunk, start);
    }
    // The rest of the chunk begins a line the next chunk ends: copied when kept, as the reader may reuse the chunk.
    if (start < chunk.length) this.take(chunk.subarray(start), true);
    return lines;
  }

  /** The last line, when the stream does not end with a newline. */
  end(): Line[] {
    const line = this.finished();
    return line === undefined ? [] : [line];
  }

  /** Counts the run of empty lines that starts at `start`, no line made for any; where the run ends. */
  private emptyLines(chunk: Buffer, start: number): number {
    let at = start;
    // Compared a page at a time (memcmp): a gigabyte of newlines, a gzip bomb's favourite, in a fraction of a byte loop's time.
    while (at + NEWLINES.length <= chunk.length && chunk.compare(NEWLINES, 0, NEWLINES.length, at, at + NEWLINES.length) === 0) at += NEWLINES.length;
    while (chunk[at] === NEWLINE) at += 1;
    this.number += at - start;
    return at;
  }

  private take(bytes: Buffer, copy = false): void {
    if (this.tooLong || bytes.length === 0) return;
    if (this.held + bytes.length > this.maxBytes) {
      this.tooLong = true;
      this.parts = [];
      this.held = 0;
      return;
    }
    // A line read past is not copied: a long one would cost its whole length in copies to collect.
    this.parts.push(copy ? Buffer.from(bytes) : bytes);
    this.held += bytes.length;
  }

  /** Ends the line held: counted always, given unless it is empty. */
  private finished(): Line | undefined {
    this.number += 1;
    const number = this.number;
    const line: Line | undefined = this.tooLong ? { number, tooLong: true } : this.held === 0 ? undefined : { number, bytes: this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.held) };
    this.parts = [];
    this.held = 0;
    this.tooLong = false;
    return line;
  }
}

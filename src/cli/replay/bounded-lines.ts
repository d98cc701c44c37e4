/** One line of a stream: its 1-based number and its bytes (without the newline), or `tooLong` when it was cut. */
export type Line = { number: number; bytes: Buffer } | { number: number; tooLong: true };

const NEWLINE = 0x0a;

/**
 * The lines of a byte stream, each held whole only up to `maxBytes`: a longer line is read past
 * (its bytes dropped as they come) and given as `tooLong`, so a file of one endless line costs
 * `maxBytes` of memory, not its size. A last line without a newline counts.
 */
export async function* boundedLines(chunks: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Line> {
  let parts: Buffer[] = [];
  let held = 0;
  let tooLong = false;
  let number = 0;
  const finished = (bytes: Buffer | undefined): Line => {
    number += 1;
    const line: Line = tooLong ? { number, tooLong: true } : { number, bytes: bytes ?? Buffer.concat(parts, held) };
    parts = [];
    held = 0;
    tooLong = false;
    return line;
  };
  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      take(chunk.subarray(start, end));
      // One line within one chunk, nothing held before it: its bytes as they are, without a copy.
      yield finished(parts.length === 1 ? parts[0] : undefined);
      start = end + 1;
    }
    // The rest of the chunk begins a line the next chunk ends: copied, as the reader may reuse the chunk.
    take(Buffer.from(chunk.subarray(start)));
  }
  if (held > 0 || tooLong) yield finished(undefined);

  function take(bytes: Buffer): void {
    if (tooLong || bytes.length === 0) return;
    if (held + bytes.length > maxBytes) {
      tooLong = true;
      parts = [];
      held = 0;
      return;
    }
    parts.push(bytes);
    held += bytes.length;
  }
}

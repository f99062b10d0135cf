/** Splits a byte stream (a file, an S3 object) into audit lines with their line numbers and byte offsets. */
import type { AuditLine } from './chain.js';

const NEWLINE = 0x0a;

/** Every line of `chunks` (the last one even without a newline: a torn line is reported, not hidden). */
export async function* linesOf(source: string, chunks: AsyncIterable<Buffer | Uint8Array | string>): AsyncGenerator<AuditLine> {
  let carry: Buffer = Buffer.alloc(0);
  let offset = 0;
  let line = 0;
  for await (const chunk of chunks) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
    let buffer = carry.length > 0 ? Buffer.concat([carry, bytes]) : bytes;
    let start = 0;
    for (let at = buffer.indexOf(NEWLINE, start); at >= 0; at = buffer.indexOf(NEWLINE, start)) {
      line += 1;
      yield { source, line, offset: offset + start, bytes: buffer.subarray(start, at) };
      start = at + 1;
    }
    offset += start;
    carry = Buffer.from(buffer.subarray(start));
    buffer = Buffer.alloc(0);
  }
  if (carry.length > 0) yield { source, line: line + 1, offset, bytes: carry };
}

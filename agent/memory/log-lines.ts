import { open } from "node:fs/promises";
import { unlessMissing } from "./memory-fs";

/** Logs are read 1 MB at a time, so a large one is never held whole. */
const CHUNK_BYTES = 1024 * 1024;
/**
 * Read from its end, a log's first read is this much, and each next one twice the last, up to
 * `CHUNK_BYTES`: most who read from the end want the last line or the last few (issue 32: start-up
 * reads the last line of two logs), and a whole chunk decoded for one line cost milliseconds each.
 */
const FIRST_CHUNK_FROM_END = 16 * 1024;

/**
 * Calls `visit` with each complete line of a log, in order, from byte `from` (0: the start; else
 * the end of a line, as returned before). What follows the last newline is a line torn by a crash
 * that was never acknowledged: it is not visited. An absent log has no lines. Resolves to the byte
 * after the last complete line, where a later read of what was appended since can start.
 */
export async function forEachLine(absolute: string, visit: (line: string, number: number) => void, from = 0): Promise<number> {
  const handle = await unlessMissing(open(absolute, "r"), undefined);
  if (handle === undefined) return 0;
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let carry = Buffer.alloc(0);
    let number = 0;
    let position = from;
    let end = from;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const data = carry.length === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
      // Decode whole lines only, so a character split between two reads is never cut.
      const last = data.lastIndexOf(0x0a);
      carry = Buffer.from(data.subarray(last + 1));
      if (last < 0) continue;
      end = position - carry.length;
      for (const line of data.toString("utf8", 0, last).split("\n")) visit(line, (number += 1));
    }
    return end;
  } finally {
    await handle.close();
  }
}

/**
 * Calls `visit` with each complete line of a log from the last to the first, reading it backwards,
 * until `visit` answers true. Lines are the ones `forEachLine` visits: what follows the last
 * newline (a torn line) is not one.
 */
export async function forEachLineFromEnd(absolute: string, visit: (line: string) => boolean): Promise<void> {
  const handle = await unlessMissing(open(absolute, "r"), undefined);
  if (handle === undefined) return;
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let end = (await handle.stat()).size;
    // The start of a line whose end was read already (bytes before its newline), and whether the
    // log's last newline was found (bytes after it are a torn line, never visited).
    let carry = Buffer.alloc(0);
    let lastNewlineFound = false;
    let size = FIRST_CHUNK_FROM_END;
    while (end > 0) {
      const start = Math.max(0, end - size);
      size = Math.min(CHUNK_BYTES, size * 2);
      const { bytesRead } = await handle.read(chunk, 0, end - start, start);
      end = start;
      let data = carry.length === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([chunk.subarray(0, bytesRead), carry]);
      carry = Buffer.alloc(0);
      if (!lastNewlineFound) {
        const last = data.lastIndexOf(0x0a);
        if (last < 0) continue;
        lastNewlineFound = true;
        data = data.subarray(0, last);
      }
      // Decode whole lines only: the first line of a chunk may start in the one before it.
      let whole = data;
      if (start > 0) {
        const first = data.indexOf(0x0a);
        carry = Buffer.from(first < 0 ? data : data.subarray(0, first));
        if (first < 0) continue;
        whole = data.subarray(first + 1);
      }
      const lines = whole.toString("utf8").split("\n");
      for (let index = lines.length - 1; index >= 0; index -= 1) if (visit(lines[index] as string)) return;
    }
  } finally {
    await handle.close();
  }
}

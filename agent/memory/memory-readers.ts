import { readFileSync } from "node:fs";
import { open, readdir, readFile, stat } from "node:fs/promises";
import type { z } from "zod";
import { AppError } from "../errors/app-error";
import { isMissing, unlessMissing } from "./memory-fs";
import { resolveMemoryPath } from "./memory-paths";
import { forEachLine, forEachLineFromEnd } from "./log-lines";

/** What a memory store reads: views and files whole, JSONL logs line by line, each record checked against its schema. */
export interface MemoryReaders {
  readJson<S extends z.ZodType>(relative: string, schema: S): Promise<z.infer<S> | undefined>;
  readText(relative: string): Promise<string | undefined>;
  readBytes(relative: string): Promise<Buffer | undefined>;
  /**
   * Up to `length` bytes of a file from byte `from` (fewer where the file ends first; none of an
   * absent file): issue 32, the end of what a log's current view folded, to tell it is still that log.
   */
  readBytesAt(relative: string, from: number, length: number): Promise<Buffer>;
  /**
   * A file whole, read synchronously; undefined when it is absent. Issue 32: only for a current
   * view that start-up left unread (agent/memory/log-view.ts `openLogView`), read the first time a
   * service needs it, from calls that answer synchronously (the registry's `get`), once a run.
   */
  readBytesSync(relative: string): Buffer | undefined;
  readJsonl<S extends z.ZodType>(relative: string, schema: S): Promise<Array<z.infer<S>>>;
  /**
   * Each record of a JSONL log in order, checked against the schema, handed to `visit` as it is
   * read (1 MB at a time) instead of collected: a fold over a long log keeps only what it folds to,
   * and the versions it drops die young (issue 17: start-up's peak heap, and so its RSS).
   */
  forEachJsonl<S extends z.ZodType>(relative: string, schema: S, visit: (record: z.infer<S>, line: number) => void): Promise<void>;
  /**
   * As `forEachJsonl`, from byte `from` (0, or an offset this returned before): what was appended
   * since a fold was last brought up to date (issue 32: a current view kept from a log reads only
   * the log's new lines). Resolves to the byte after the last complete line; a log shorter than
   * `from` (replaced) resolves to -1 without visiting anything.
   */
  forEachJsonlFrom<S extends z.ZodType>(relative: string, schema: S, from: number, visit: (record: z.infer<S>) => void): Promise<number>;
  /**
   * The records of a JSONL log whose line contains `containing` (a plain substring test before any
   * parsing), read in chunks so a large log is never held whole; only the kept lines are parsed
   * and checked against the schema.
   */
  readJsonlContaining<S extends z.ZodType>(relative: string, schema: S, containing: string): Promise<Array<z.infer<S>>>;
  /**
   * The last `count` records of a JSONL log whose line contains `containing` (a plain substring test
   * before any parsing) and that `keep` accepts, oldest first. Read from the end of the log, 1 MB
   * at a time, and no further back than it takes to find them (issue 17: the receipts log holds
   * every receipt ever written, and start-up wants a session's last ten).
   */
  readJsonlLast<S extends z.ZodType>(
    relative: string,
    schema: S,
    containing: string,
    count: number,
    keep?: (record: z.infer<S>) => boolean,
  ): Promise<Array<z.infer<S>>>;
  exists(relative: string): Promise<boolean>;
  /** A file's length in bytes; undefined when it is absent (issue 32: a log named by its length and last bytes). */
  sizeOf(relative: string): Promise<number | undefined>;
  list(relative: string): Promise<string[]>;
}

const corrupt = (relative: string, detail: string) => new AppError("MEMORY_RECORD_CORRUPT", `A record in ${relative} is not valid (${detail}).`);

/** One JSON text checked against its schema; MEMORY_RECORD_CORRUPT names the file and, in a log, the line. */
function parseRecord<S extends z.ZodType>(relative: string, schema: S, text: string, line?: string): z.infer<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt(relative, line === undefined ? "not JSON" : `${line} is not JSON`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw corrupt(relative, line === undefined ? "does not match its schema" : `${line} does not match its schema`);
  return parsed.data;
}

/** Every reader, by name (the type makes the list whole): the methods of a store that never write. */
const READER_NAMES: Record<keyof MemoryReaders, true> = {
  readJson: true,
  readText: true,
  readBytes: true,
  readBytesAt: true,
  readBytesSync: true,
  readJsonl: true,
  forEachJsonl: true,
  forEachJsonlFrom: true,
  readJsonlContaining: true,
  readJsonlLast: true,
  exists: true,
  sizeOf: true,
  list: true,
};
export const MEMORY_READER_NAMES: ReadonlySet<string> = new Set(Object.keys(READER_NAMES));

export function createMemoryReaders(root: string): MemoryReaders {
  const at = (relative: string) => resolveMemoryPath(root, relative);
  const readText = async (relative: string) => unlessMissing(readFile(at(relative), "utf8"), undefined);
  return {
    readText,
    async readJson(relative, schema) {
      const text = await readText(relative);
      return text === undefined ? undefined : parseRecord(relative, schema, text);
    },
    readBytes: async (relative) => unlessMissing(readFile(at(relative)), undefined),
    readBytesSync(relative) {
      try {
        return readFileSync(at(relative));
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async readBytesAt(relative, from, length) {
      const handle = await unlessMissing(open(at(relative), "r"), undefined);
      if (handle === undefined) return Buffer.alloc(0);
      try {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, from);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
    async readJsonl(relative, schema) {
      const records: Array<z.infer<typeof schema>> = [];
      await forEachLine(at(relative), (line, number) => void records.push(parseRecord(relative, schema, line, `line ${number}`)));
      return records;
    },
    forEachJsonl: async (relative, schema, visit) => {
      await forEachLine(at(relative), (line, number) => visit(parseRecord(relative, schema, line, `line ${number}`), number));
    },
    async forEachJsonlFrom(relative, schema, from, visit) {
      const size = await unlessMissing(
        stat(at(relative)).then((stats) => stats.size),
        0,
      );
      if (size < from) return -1;
      return forEachLine(at(relative), (line, number) => visit(parseRecord(relative, schema, line, `line ${number} after byte ${from}`)), from);
    },
    async readJsonlContaining(relative, schema, containing) {
      const kept: Array<{ line: string; number: number }> = [];
      await forEachLine(at(relative), (line, number) => {
        if (line.includes(containing)) kept.push({ line, number });
      });
      return kept.map(({ line, number }) => parseRecord(relative, schema, line, `line ${number}`));
    },
    async readJsonlLast(relative, schema, containing, count, keep = () => true) {
      const found: Array<z.infer<typeof schema>> = [];
      if (count <= 0) return found;
      let fromEnd = 0;
      await forEachLineFromEnd(at(relative), (line) => {
        fromEnd += 1;
        if (!line.includes(containing)) return false;
        const record = parseRecord(relative, schema, line, `line ${fromEnd} from the end`);
        if (keep(record)) found.push(record);
        return found.length >= count;
      });
      return found.reverse();
    },
    exists: async (relative) =>
      unlessMissing(
        stat(at(relative)).then(() => true),
        false,
      ),
    sizeOf: async (relative) =>
      unlessMissing(
        stat(at(relative)).then((stats) => stats.size),
        undefined,
      ),
    list: async (relative) =>
      unlessMissing(
        readdir(at(relative)).then((names) => names.sort()),
        [],
      ),
  };
}

import { createHash } from "node:crypto";
import { z } from "zod";
import type { MemoryStore } from "./memory-store";

/** One id's winning version in a log view: its record, and a mark the fold keeps with it (e.g. when a session entered its state). */
export interface LogViewEntry {
  record: unknown;
  mark?: string | undefined;
}

/** What one line of the log does to the view: puts an id's new version, or removes the id. */
export type LogViewChange = { id: string; put: true; record: unknown } | { id: string; put: false };

/** An append-only log (the last version per id wins) and the compact current view kept next to it. */
export interface LogViewSpec<L> {
  log: string;
  view: string;
  /** Each line as the fold needs it (a line that does not match stops the fold: MEMORY_RECORD_CORRUPT). */
  line: z.ZodType<L>;
  /** What a line does; throws MEMORY_RECORD_CORRUPT for a line that is neither a put nor a removal. */
  change(line: L, number: number): LogViewChange;
  /** The mark kept with a put, given the id's entry before it. */
  mark?(previous: LogViewEntry | undefined, record: unknown): string | undefined;
}

/**
 * Issue 32: the view file, a derived cache the log can always rebuild. Each live id's winning
 * version, as the fold left it, the byte of the log folded up to, and a digest of the log's last
 * bytes before it (`anchor`): a view that is behind catches up from the log's tail (the log is only
 * ever appended to, so a stop between an append and the view's write loses nothing).
 */
const LogViewFileSchema = z.object({
  folded_to_byte: z.number().int().min(0),
  anchor: z.string(),
  /** Each entry is `LogViewEntry`-shaped (`isViewEntry`). */
  entries: z.record(z.string(), z.unknown()),
  schema_version: z.literal(1),
});
type LogViewFile = Omit<z.infer<typeof LogViewFileSchema>, "entries"> & { entries: Record<string, LogViewEntry> };

/**
 * The view file is one JSON document, `{"sha256":"<64 hex>","view":<view>}`: the digest of the view's
 * text as written, so a view changed or cut on disk is not trusted (the prefix has a fixed width).
 */
const DIGEST_PREFIX = '{"sha256":"';
const VIEW_AT = DIGEST_PREFIX.length + 64 + '","view":'.length;

/** How many of the log's bytes before `folded_to_byte` the anchor digests. */
const ANCHOR_BYTES = 512;

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/**
 * The digest of the log's last bytes before `byte`: the same only while the log is the one the view was folded from
 * (and, at its length, while nothing was appended: the views stamp names a log by it, agent/abilities/views-stamp.ts).
 */
export async function anchorOf(memory: MemoryStore, log: string, byte: number): Promise<string> {
  const from = Math.max(0, byte - ANCHOR_BYTES);
  const bytes = await memory.readBytesAt(log, from, byte - from);
  return bytes.length === byte - from ? sha256(bytes) : "";
}

/** ASCII whitespace at the end of a view file (it is written with a trailing newline). */
const TRAILING_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const PREFIX_BYTES = Buffer.from(DIGEST_PREFIX);
const CLOSE_BRACE = 0x7d;

/**
 * The view file as kept, or undefined when it is missing, cut, changed, of another format, or not of this log's bytes.
 * Issue 32: read and digested as bytes (the digest of a view's text is the digest of its UTF-8 bytes); hashing the
 * decoded text encoded it again, which at 10,000 abilities cost more than the digest itself.
 */
async function readKept<L>(memory: MemoryStore, spec: LogViewSpec<L>): Promise<LogViewFile | undefined> {
  const bytes = await memory.readBytes(spec.view).catch(() => undefined);
  if (bytes === undefined) return undefined;
  let end = bytes.length;
  while (end > 0 && TRAILING_SPACE.has(bytes[end - 1]!)) end -= 1;
  if (end <= VIEW_AT || !bytes.subarray(0, PREFIX_BYTES.length).equals(PREFIX_BYTES) || bytes[end - 1] !== CLOSE_BRACE) return undefined;
  const body = bytes.subarray(VIEW_AT, end - 1);
  if (bytes.toString("latin1", DIGEST_PREFIX.length, DIGEST_PREFIX.length + 64) !== sha256(body)) return undefined;
  try {
    const file = LogViewFileSchema.safeParse(JSON.parse(body.toString("utf8")));
    if (!file.success || !Object.values(file.data.entries).every(isViewEntry)) return undefined;
    // Every entry was just checked to be a LogViewEntry.
    const kept: LogViewFile = { ...file.data, entries: file.data.entries as Record<string, LogViewEntry> };
    return kept.anchor === (await anchorOf(memory, spec.log, kept.folded_to_byte)) ? kept : undefined;
  } catch {
    return undefined;
  }
}

/** An entry as `writeView` writes it: its record, and a mark when the fold kept one (checked by hand: a schema per entry cost more than the parse). */
function isViewEntry(entry: unknown): entry is LogViewEntry {
  if (typeof entry !== "object" || entry === null || !("record" in entry)) return false;
  const { mark } = entry as { mark?: unknown };
  return mark === undefined || typeof mark === "string";
}

/** Writes the view file: the view's digest, then the view (compact: a view of 1,000 sessions is read at every start). */
async function writeView<L>(memory: MemoryStore, spec: LogViewSpec<L>, file: LogViewFile): Promise<void> {
  const body = JSON.stringify({ ...file, anchor: await anchorOf(memory, spec.log, file.folded_to_byte) });
  await memory.writeText(spec.view, `${DIGEST_PREFIX}${sha256(body)}","view":${body}}\n`);
}

/** The view as read: its entries, and the ids whose version came from the log now (not from the view file), to be checked in full. */
export interface LoadedLogView {
  entries: Map<string, LogViewEntry>;
  fromLog: Set<string>;
}

/** Folds the log from the view's byte on, in place; -1 when the log is shorter than that byte (replaced). */
async function foldTail<L>(memory: MemoryStore, spec: LogViewSpec<L>, file: LogViewFile, fromLog: Set<string>): Promise<number> {
  let number = 0;
  return memory.forEachJsonlFrom(spec.log, spec.line, file.folded_to_byte, (line) => {
    const change = spec.change(line, (number += 1));
    fromLog.add(change.id);
    if (!change.put) {
      delete file.entries[change.id];
      return;
    }
    const mark = spec.mark?.(file.entries[change.id], change.record);
    file.entries[change.id] = mark === undefined ? { record: change.record } : { record: change.record, mark };
  });
}

/**
 * The view file brought up to date: the kept one plus the log's tail, else (missing, torn, changed,
 * ahead of the log, or of a log since replaced) one folded from the whole log, the source of truth.
 */
async function catchUp<L>(memory: MemoryStore, spec: LogViewSpec<L>): Promise<{ file: LogViewFile; fromLog: Set<string>; changed: boolean }> {
  const kept = await readKept(memory, spec);
  if (kept !== undefined) {
    const fromLog = new Set<string>();
    const before = kept.folded_to_byte;
    // A tail that does not fold (the view does not fit this log) is folded again from the start, where a bad line is reported.
    const end = await foldTail(memory, spec, kept, fromLog).catch(() => -1);
    if (end >= 0) return { file: { ...kept, folded_to_byte: end }, fromLog, changed: end !== before };
  }
  const file: LogViewFile = { folded_to_byte: 0, anchor: "", entries: {}, schema_version: 1 };
  const fromLog = new Set<string>();
  file.folded_to_byte = Math.max(0, await foldTail(memory, spec, file, fromLog));
  return { file, fromLog, changed: true };
}

/** Checks a winning version in full: answers the record as parsed, or throws MEMORY_RECORD_CORRUPT. */
export type LogViewCheck = (id: string, record: unknown) => unknown;

/**
 * Reads a log through its current view: the view file and only the bytes the log gained since it
 * was written. `check` parses each winning version that came from the log (all of them when the
 * view was rebuilt) and throws to refuse it; the view is written back only after every check
 * passed, with the versions as parsed, so it never holds a version that was not checked.
 */
export async function loadLogView<L>(memory: MemoryStore, spec: LogViewSpec<L>, check: LogViewCheck): Promise<LoadedLogView> {
  const { file, fromLog, changed } = await catchUp(memory, spec);
  for (const id of fromLog) {
    const entry = file.entries[id];
    if (entry !== undefined) entry.record = check(id, entry.record);
  }
  const entries = new Map(Object.entries(file.entries));
  if (changed) await writeView(memory, spec, file);
  return { entries, fromLog };
}

/** How many appends a view may fall behind before a write brings it up to date (start-up then folds at most these). */
const APPENDS_BETWEEN_CATCH_UPS = 200;

/**
 * Keeps a log's view up to date on write: every `APPENDS_BETWEEN_CATCH_UPS` appends, the view is
 * brought up to date from the log's tail (the view, not the caller's state in memory, is what is
 * folded, so the view is always the fold of the log up to its byte). Callers append first, then note it.
 */
export function createLogViewKeeper<L>(memory: MemoryStore, spec: LogViewSpec<L>, check: LogViewCheck) {
  let appended = 0;
  return {
    async noteAppend(): Promise<void> {
      appended += 1;
      if (appended < APPENDS_BETWEEN_CATCH_UPS) return;
      appended = 0;
      // A view that cannot be brought up to date now stays behind; the next start folds the tail.
      await loadLogView(memory, spec, check).catch(() => undefined);
    },
  };
}

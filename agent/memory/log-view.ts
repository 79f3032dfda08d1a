import { createHash } from "node:crypto";
import type { z } from "zod";
import { AppError } from "../errors/app-error";
import { checkViewFile, encodeViewFile, readViewHead, VIEW_HEAD_BYTES, type ViewFile, type ViewHead } from "./log-view-file";
import { LogViewRecords, type KeptRecord, type ReadKeptRecord } from "./log-view-records";
import type { MemoryStore } from "./memory-store";

/** One id's winning version as the fold meets it: its record (parsed when first asked for), and its marks. */
export interface LogViewEntry {
  readonly record: unknown;
  readonly marks: readonly string[];
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
  /**
   * The marks kept with a put, given the id's entry before it: short texts the view's index keeps,
   * so start-up has them without parsing the record (a session's state and when it entered it, an
   * ability's skill name, a proposal's session).
   */
  marks?(previous: LogViewEntry | undefined, record: unknown): readonly string[];
}

/** Checks a winning version in full: answers the record as parsed, or throws MEMORY_RECORD_CORRUPT. */
export type LogViewCheck<T> = (id: string, record: unknown) => T;

/** The check of a log whose versions are parsed by one schema; `what` names a record in the error (`ability`, `proposal`). */
export function checkedBy<S extends z.ZodType>(schema: S, log: string, what: string): LogViewCheck<z.output<S>> {
  return (id, record) => {
    const parsed = schema.safeParse(record);
    if (!parsed.success)
      throw new AppError("MEMORY_RECORD_CORRUPT", `A record in ${log} is not valid (the last version of ${what} ${id} does not match its schema).`);
    return parsed.data;
  };
}

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

/**
 * Issue 32: reads a record the view file kept as bytes, the first time it is asked for: parsed and
 * checked in full, or MEMORY_RECORD_CORRUPT then (the file's digest matched, so this is a view
 * written by a version whose schema differed, or edited with its digest made to match).
 */
function keptRecordReader<T>(spec: { log: string; view: string }, check: LogViewCheck<T>): ReadKeptRecord<T> {
  return (id, text) => {
    try {
      return check(id, JSON.parse(text.file.toString("utf8", text.start, text.end)));
    } catch (error) {
      throw new AppError(
        "MEMORY_RECORD_CORRUPT",
        `A record in ${spec.view} is not valid (that of ${id}). The file is a cache of ${spec.log}: removed, it is rebuilt from the log at the next start.`,
        { cause: error },
      );
    }
  };
}

/** The view file as kept, or undefined when it is missing, cut, changed, of another format, or not of this log's bytes. */
async function readKept<L>(memory: MemoryStore, spec: LogViewSpec<L>): Promise<ViewFile | undefined> {
  const bytes = await memory.readBytes(spec.view).catch(() => undefined);
  const file = bytes === undefined ? undefined : checkViewFile(bytes)?.decode();
  if (file === undefined || file.anchor !== (await anchorOf(memory, spec.log, file.folded_to_byte))) return undefined;
  // Format 1 kept one mark at most (a session's entry into its state): each version is marked as if put again over itself.
  if (file.format === 1) {
    for (const [id, kept] of file.records) {
      const old = file.marks.get(id) ?? [];
      const record = "value" in kept ? kept.value : undefined;
      const marks = spec.marks?.(old.length === 0 ? undefined : { record, marks: old }, record) ?? [];
      if (marks.length === 0) file.marks.delete(id);
      else file.marks.set(id, marks);
    }
  }
  return file;
}

/** The id's entry as the fold meets it; a record kept as bytes is read only if the spec's marks ask for it. */
function entryOf(file: ViewFile, id: string, read: (id: string, kept: KeptRecord) => unknown): LogViewEntry | undefined {
  const kept = file.records.get(id);
  if (kept === undefined) return undefined;
  return {
    get record() {
      return read(id, kept);
    },
    marks: file.marks.get(id) ?? [],
  };
}

/** Folds the log from the view's byte on, in place; -1 when the log is shorter than that byte (replaced). */
async function foldTail<L>(
  memory: MemoryStore,
  spec: LogViewSpec<L>,
  file: ViewFile,
  fromLog: Set<string>,
  read: (id: string, kept: KeptRecord) => unknown,
): Promise<number> {
  let number = 0;
  return memory.forEachJsonlFrom(spec.log, spec.line, file.folded_to_byte, (line) => {
    const change = spec.change(line, (number += 1));
    fromLog.add(change.id);
    if (!change.put) {
      file.records.delete(change.id);
      file.marks.delete(change.id);
      return;
    }
    const marks = spec.marks?.(entryOf(file, change.id, read), change.record) ?? [];
    file.records.set(change.id, { value: change.record });
    if (marks.length === 0) file.marks.delete(change.id);
    else file.marks.set(change.id, marks);
  });
}

/**
 * The view file brought up to date: the kept one plus the log's tail, else (missing, torn, changed,
 * ahead of the log, or of a log since replaced) one folded from the whole log, the source of truth.
 */
async function catchUp<L, T>(
  memory: MemoryStore,
  spec: LogViewSpec<L>,
  readText: ReadKeptRecord<T>,
): Promise<{ file: ViewFile; fromLog: Set<string>; changed: boolean }> {
  const read = (id: string, kept: KeptRecord) => ("value" in kept ? kept.value : readText(id, kept));
  const kept = await readKept(memory, spec);
  if (kept !== undefined) {
    const fromLog = new Set<string>();
    const before = kept.folded_to_byte;
    // A tail that does not fold (the view does not fit this log) is folded again from the start, where a bad line is reported.
    const end = await foldTail(memory, spec, kept, fromLog, read).catch(() => -1);
    // A view of format 1 is written again in format 2, whether or not the log moved.
    if (end >= 0) return { file: { ...kept, folded_to_byte: end }, fromLog, changed: end !== before || kept.format !== 2 };
  }
  const file: ViewFile = { folded_to_byte: 0, anchor: "", records: new Map(), marks: new Map(), format: 2 };
  const fromLog = new Set<string>();
  file.folded_to_byte = Math.max(0, await foldTail(memory, spec, file, fromLog, read));
  return { file, fromLog, changed: true };
}

/** Writes the view file in format 2, anchored to the log's bytes before its byte. */
async function writeView<L>(memory: MemoryStore, spec: LogViewSpec<L>, file: ViewFile): Promise<void> {
  const anchor = await anchorOf(memory, spec.log, file.folded_to_byte);
  await memory.writeBytes(spec.view, encodeViewFile({ ...file, anchor }));
}

/** A log's live records as read through its view, and each id's marks (read from the view's index, no record parsed). */
export interface LoadedLogView<T> {
  records: LogViewRecords<T>;
  marks: Map<string, readonly string[]>;
}

/**
 * Reads a log through its current view: the view file and only the bytes the log gained since it
 * was written. `check` parses each winning version that came from the log now (all of them when
 * the view was rebuilt), before this resolves, and throws to refuse it; the view is written back
 * only after every such check passed. A record the view file kept is parsed and checked when it is
 * first read (`LogViewRecords`): start-up parses the view's index, not its records.
 */
export async function loadLogView<L, T>(memory: MemoryStore, spec: LogViewSpec<L>, check: LogViewCheck<T>): Promise<LoadedLogView<T>> {
  const readText = keptRecordReader(spec, check);
  const { file, fromLog, changed } = await catchUp(memory, spec, readText);
  for (const id of fromLog) {
    const kept = file.records.get(id);
    if (kept !== undefined && "value" in kept) file.records.set(id, { value: check(id, kept.value) });
  }
  if (changed) await writeView(memory, spec, file);
  return { records: new LogViewRecords(file.records, readText), marks: file.marks };
}

/** A log read through its view when first needed: the records and marks, read at the first call. */
export type LogViewReader<T> = () => LoadedLogView<T>;

/**
 * Issue 32: a log whose records start-up does not need (the registry, the proposals). When its view
 * file is current (its head says it was folded to the log's last byte, and the log's bytes before
 * that byte match its anchor), start-up reads only the head, a few hundred bytes whatever the
 * number of records: the file is read whole, its digest checked and its index laid out against its
 * records at the first read. Any other view (missing, behind the log, of format 1, of a log since
 * replaced) is read now, as `loadLogView` reads it.
 *
 * A view found current that, read whole, is not what its head said (changed on disk: its digest
 * does not match, or is not the one its head named) or does not lay out (its digest matched, so a
 * writer of another version wrote it) is refused at that read with MEMORY_RECORD_CORRUPT, and
 * rebuilt from the log at once: reads are refused until the rebuild is done, then answer from it
 * (`repairOf`).
 */
export async function openLogView<L, T>(memory: MemoryStore, spec: LogViewSpec<L>, check: LogViewCheck<T>): Promise<LogViewReader<T>> {
  const head = readViewHead(await memory.readBytesAt(spec.view, 0, VIEW_HEAD_BYTES));
  const current =
    head !== undefined && (await memory.sizeOf(spec.log)) === head.folded_to_byte && head.anchor === (await anchorOf(memory, spec.log, head.folded_to_byte));
  if (!current) {
    const loaded = await loadLogView(memory, spec, check);
    return () => loaded;
  }
  const readText = keptRecordReader(spec, check);
  let loaded: LoadedLogView<T> | undefined;
  let repair: Repair<T> | undefined;
  return () => {
    if (loaded !== undefined) return loaded;
    if (repair === undefined) {
      const file = asHeadSaid(memory.readBytesSync(spec.view), head);
      if (file !== undefined) return (loaded = { records: new LogViewRecords(file.records, readText), marks: file.marks });
      repair = repairOf(memory, spec, check);
    }
    if (repair.done !== undefined) return (loaded = repair.done);
    if (repair.failed !== undefined) throw repair.failed;
    throw new AppError(
      "MEMORY_RECORD_CORRUPT",
      `${spec.view} is not as it was at start-up, or does not lay out its records as its index says. The file is a cache of ${spec.log}: it is being rebuilt from the log; try again.`,
    );
  };
}

/** The view file read whole, when its digest matches and is the one its head named at start-up, laid out; else undefined. */
function asHeadSaid(bytes: Buffer | undefined, head: ViewHead): ViewFile | undefined {
  const checked = bytes === undefined ? undefined : checkViewFile(bytes);
  // The head is part of what the digest covers: the same digest, matched, is the same head (so format 2 still).
  return checked?.digest === head.digest ? checked.decode() : undefined;
}

/** A view rebuilt from its log: `done` once it is, `failed` with the fold's error (a bad line in the log) if it cannot be. */
interface Repair<T> {
  done?: LoadedLogView<T>;
  failed?: unknown;
}

/** The log folded whole (the view that does not lay out is ignored, as `loadLogView` ignores it) and its view written again. */
function repairOf<L, T>(memory: MemoryStore, spec: LogViewSpec<L>, check: LogViewCheck<T>): Repair<T> {
  const repair: Repair<T> = {};
  void loadLogView(memory, spec, check).then(
    (rebuilt) => (repair.done = rebuilt),
    (error: unknown) => (repair.failed = error),
  );
  return repair;
}

/** How many appends a view may fall behind before a write brings it up to date (start-up then folds at most these). */
const APPENDS_BETWEEN_CATCH_UPS = 200;

/**
 * Keeps a log's view up to date on write: every `APPENDS_BETWEEN_CATCH_UPS` appends, the view is
 * brought up to date from the log's tail (the view, not the caller's state in memory, is what is
 * folded, so the view is always the fold of the log up to its byte; its records kept as bytes are
 * copied, not parsed). Callers append first, then note it.
 */
export function createLogViewKeeper<L, T>(memory: MemoryStore, spec: LogViewSpec<L>, check: LogViewCheck<T>) {
  let appended = 0;
  const catchUp = async () => {
    appended = 0;
    // A view that cannot be brought up to date now stays behind; the next start folds the tail.
    await loadLogView(memory, spec, check).catch(() => undefined);
  };
  return {
    async noteAppend(): Promise<void> {
      appended += 1;
      if (appended >= APPENDS_BETWEEN_CATCH_UPS) await catchUp();
    },
    /** At the agent's stop: the view brought up to date if anything was appended since it last was, so the next start finds it current (`openLogView`). */
    async settle(): Promise<void> {
      if (appended > 0) await catchUp();
    },
  };
}

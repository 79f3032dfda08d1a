import { appendFile, mkdtemp, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AppError } from "../errors/app-error";
import { anchorOf, createLogViewKeeper, loadLogView, openLogView, type LoadedLogView, type LogViewSpec } from "./log-view";
import { VIEW_HEAD_BYTES } from "./log-view-file";
import { openMemoryStore, type MemoryStore } from "./memory-store";
import { editViewRecords, withDigest } from "../test-support/log-view-files";

const Line = z.union([z.object({ id: z.string(), state: z.string(), v: z.number() }), z.object({ id: z.string(), removed: z.literal(true) })]);
type Line = z.infer<typeof Line>;

const LOG = "system/test/items.jsonl";
const VIEW = "system/test/items_current.json";

const spec: LogViewSpec<Line> = {
  log: LOG,
  view: VIEW,
  line: Line,
  change: (line) => ("removed" in line ? { id: line.id, put: false } : { id: line.id, put: true, record: line }),
  // When the item entered its state, as sessions keep it.
  marks: (previous, record) => {
    const item = record as { state: string; v: number };
    return previous === undefined || (previous.record as { state: string }).state !== item.state ? [`v${item.v}`] : previous.marks;
  },
};
/** A winning version checked in full: a negative `v` is refused, as a session that does not match its schema. */
const check = (id: string, record: unknown) => {
  if ((record as { v: number }).v < 0) throw new AppError("MEMORY_RECORD_CORRUPT", `item ${id} is not valid`);
  return record;
};

let root: string;
let store: MemoryStore;
/** Where each fold of the log started (forEachJsonlFrom's byte), and whether the whole log was folded through another reader. */
let foldsFrom: number[];
/** Each read of the view file: the reader's name and its arguments after the path. */
let viewReads: Array<[string, ...unknown[]]>;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "elnor-log-view-"));
  store = await openMemoryStore({ root });
  foldsFrom = [];
  viewReads = [];
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

/** The store with the log's folds and the view file's reads counted. */
function counted(): MemoryStore {
  return new Proxy(store, {
    get(target, member, receiver) {
      const value = Reflect.get(target, member, receiver) as unknown;
      if (typeof member !== "string" || typeof value !== "function") return value;
      return (relative: string, ...rest: unknown[]) => {
        if (member === "forEachJsonlFrom" && relative === LOG) foldsFrom.push(rest[1] as number);
        if (relative === VIEW && member.startsWith("read")) viewReads.push([member, ...rest]);
        return (value as (...args: unknown[]) => unknown).call(target, relative, ...rest);
      };
    },
  });
}

const put = (id: string, state: string, v: number) => store.append(LOG, { id, state, v });

/** What folding the whole log gives, from a store with no view: the source of truth. */
async function foldedFromLog(): Promise<Record<string, unknown>> {
  const loaded = await loadLogView(counted(), { ...spec, view: "system/test/scratch_current.json" }, check);
  await store.remove("system/test/scratch_current.json");
  foldsFrom.pop();
  return entriesOf(loaded);
}

/** Each id's record (every one read) and mark, as one object to compare. */
function entriesOf({ records, marks }: LoadedLogView<unknown>): Record<string, { record: unknown; mark?: string }> {
  return Object.fromEntries([...records].map(([id, record]) => [id, marks.has(id) ? { record, mark: marks.get(id)?.join(" ") } : { record }]));
}

const load = async () => entriesOf(await loadLogView(counted(), spec, check));
const logSize = async () => (await stat(path.join(root, LOG))).size;

/** A memory with a view up to date with its log, and a few lines appended since. */
async function viewThenTail(): Promise<number> {
  await put("a", "draft", 1);
  await put("b", "draft", 2);
  await put("a", "draft", 3);
  await load();
  const byte = await logSize();
  await put("a", "ready", 4);
  await store.append(LOG, { id: "b", removed: true });
  await put("c", "draft", 5);
  foldsFrom = [];
  return byte;
}

/** The view file with its view's text edited and its digest made to match. */
function redigested(text: string, edit: (body: string) => string): string {
  return withDigest(edit(text.trimEnd().slice(text.indexOf('"view":') + 7, -1)));
}

/** A view file of format 1, as agents before lazy records wrote it: one JSON document, every record in it. */
async function formatOneFile(byte: number, entries: Record<string, { record: unknown; mark?: string }>): Promise<string> {
  return withDigest(JSON.stringify({ folded_to_byte: byte, anchor: await anchorOf(store, LOG, byte), entries, schema_version: 1 }));
}

/** A small deterministic generator (mulberry32): the same "random" records at every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Any JSON value, with the text a view must keep exactly: quotes, backslashes, newlines, U+2028, accents, astral characters. */
function randomJson(random: () => number, depth = 0): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const text = () => Array.from({ length: Math.floor(random() * 8) }, () => pick(["a", "é", '"', "\\", "\n", "\u2028", "草", "😀", "\u0000", " "])).join("");
  const kind = depth > 3 ? Math.floor(random() * 4) : Math.floor(random() * 6);
  if (kind === 0) return text();
  if (kind === 1) return pick([0, -1, 1.5, 1e21, -0.000123, Number.MAX_SAFE_INTEGER]);
  if (kind === 2) return pick([true, false]);
  if (kind === 3) return null;
  if (kind === 4) return Array.from({ length: Math.floor(random() * 4) }, () => randomJson(random, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [text(), randomJson(random, depth + 1)]));
}

describe("issue 32: a log's current view is a derived cache of the log", () => {
  it("trusts a view whose records hold text beyond ASCII (its digest is of the view's UTF-8 bytes)", async () => {
    await put("a", "brouillon — état 草稿", 1);
    await load();
    const byte = await logSize();
    foldsFrom = [];
    expect(await load()).toEqual({ a: { record: { id: "a", state: "brouillon — état 草稿", v: 1 }, mark: "v1" } });
    expect(foldsFrom).toEqual([byte]);
  });

  it("reads only what the log gained since the view, and equals folding the whole log", async () => {
    const byte = await viewThenTail();
    const loaded = await load();
    expect(foldsFrom).toEqual([byte]);
    expect(loaded).toEqual(await foldedFromLog());
    expect(loaded).toEqual({
      a: { record: { id: "a", state: "ready", v: 4 }, mark: "v4" },
      c: { record: { id: "c", state: "draft", v: 5 }, mark: "v5" },
    });
    // Written back up to the log's end: the next load folds nothing before it.
    foldsFrom = [];
    expect(await load()).toEqual(loaded);
    expect(foldsFrom).toEqual([await logSize()]);
  });

  it("folds the whole log when the view is missing, and writes it", async () => {
    await viewThenTail();
    await store.remove(VIEW);
    expect(await load()).toEqual(await foldedFromLog());
    expect(foldsFrom).toEqual([0]);
    expect(await store.exists(VIEW)).toBe(true);
  });

  it.each([
    ["torn (cut short, as by a crash mid-write)", (text: string) => text.slice(0, Math.floor(text.length / 2))],
    ["empty", () => ""],
    ["not JSON", () => "{{{\n"],
    ["changed on disk (a record altered, the digest no longer matches)", (text: string) => text.replace('"state":"draft"', '"state":"ready"')],
    [
      "of another format (digest right, view of another version)",
      (text: string) => redigested(text, (body) => body.replace('{"schema_version":2,', '{"schema_version":3,')),
    ],
    ["indexing a record without its length (digest right)", (text: string) => redigested(text, (body) => body.replace(/\["a",\d+,/, '["a",'))],
    [
      "indexing a record one byte longer than it is (digest right)",
      (text: string) => redigested(text, (body) => body.replace(/\["a",(\d+),/, (_all, bytes: string) => `["a",${Number(bytes) + 1},`)),
    ],
    ["indexing one id twice (digest right)", (text: string) => redigested(text, (body) => body.replace('["c",', '["a",'))],
    ["indexing fewer records than it holds (digest right)", (text: string) => redigested(text, (body) => body.replace(/,\["c",\d+,"v5"\]/, ""))],
  ])("folds the whole log when the view is %s", async (_name, spoil) => {
    await viewThenTail();
    await load();
    const file = path.join(root, VIEW);
    const spoiled = spoil(await readFile(file, "utf8"));
    expect(spoiled).not.toBe(await readFile(file, "utf8"));
    await writeFile(file, spoiled);
    foldsFrom = [];
    expect(await load()).toEqual(await foldedFromLog());
    expect(foldsFrom).toEqual([0]);
  });

  it("folds the whole log when the view is past the log's end (log truncated)", async () => {
    const byte = await viewThenTail();
    await load();
    await truncate(path.join(root, LOG), byte);
    foldsFrom = [];
    const loaded = await load();
    expect(loaded).toEqual(await foldedFromLog());
    expect(loaded.c).toBeUndefined();
    // A whole fold after the view's byte failed: -1 from the tail, then from 0.
    expect(foldsFrom.at(-1)).toBe(0);
  });

  it("folds the whole log when the log was replaced by another, even one longer than the view's byte", async () => {
    await viewThenTail();
    await load();
    const size = await logSize();
    await store.close();
    // A line ends exactly at the view's byte, so the tail after it folds cleanly: only the anchor tells the logs apart.
    const first = JSON.stringify({ id: "x", state: "draft", v: 10, pad: "" });
    const text = `${JSON.stringify({ id: "x", state: "draft", v: 10, pad: "p".repeat(size - first.length - 1) })}\n${JSON.stringify({ id: "y", state: "draft", v: 11 })}\n`;
    expect(text.indexOf("\n") + 1).toBe(size);
    await writeFile(path.join(root, LOG), text);
    store = await openMemoryStore({ root });
    const loaded = await load();
    expect(loaded).toEqual(await foldedFromLog());
    expect(Object.keys(loaded).sort()).toEqual(["x", "y"]);
    expect(foldsFrom.at(-1)).toBe(0);
  });

  it("never trusts a torn last line of the log: it is folded once complete", async () => {
    await viewThenTail();
    // A crash in the middle of an append, then a new start.
    await store.close();
    await appendFile(path.join(root, LOG), '{"id":"d","state":"dr');
    store = await openMemoryStore({ root });
    const loaded = await load();
    expect(loaded.d).toBeUndefined();
    // The next append cuts the torn line off first; the view catches up from its byte.
    await put("d", "draft", 6);
    expect((await load()).d).toEqual({ record: { id: "d", state: "draft", v: 6 }, mark: "v6" });
    expect(await load()).toEqual(await foldedFromLog());
  });

  it("still stops on a corrupt line or a version that fails its check, whether in the tail or under a rebuilt view", async () => {
    await viewThenTail();
    await put("e", "draft", -1);
    await expect(load()).rejects.toMatchObject({ code: "MEMORY_RECORD_CORRUPT" });
    await appendFile(path.join(root, LOG), '{"id":"f"}\n');
    await expect(load()).rejects.toMatchObject({ code: "MEMORY_RECORD_CORRUPT" });
    await store.remove(VIEW);
    await expect(load()).rejects.toMatchObject({ code: "MEMORY_RECORD_CORRUPT" });
  });

  it("reads a view of format 1 (one JSON document, every record in it) and writes it again in format 2", async () => {
    await put("a", "draft", 1);
    await put("b", "draft", 2);
    await put("a", "draft", 3);
    const byte = await logSize();
    await writeFile(
      path.join(root, VIEW),
      await formatOneFile(byte, { a: { record: { id: "a", state: "draft", v: 3 }, mark: "v1" }, b: { record: { id: "b", state: "draft", v: 2 }, mark: "v2" } }),
    );
    await put("a", "ready", 4);
    foldsFrom = [];
    const loaded = await load();
    // The view of format 1 was trusted (only the log's tail was folded), and equals the fold of the whole log.
    expect(foldsFrom).toEqual([byte]);
    expect(loaded).toEqual(await foldedFromLog());
    const text = await readFile(path.join(root, VIEW), "utf8");
    expect(text.split("\n")[0]).toMatch(/^\{"sha256":"[0-9a-f]{64}","view":\{"schema_version":2,.*,"records":\[$/);
    foldsFrom = [];
    expect(await load()).toEqual(loaded);
    expect(foldsFrom).toEqual([await logSize()]);
  });

  it("writes a view of format 1 again in format 2 even when the log did not move", async () => {
    await put("a", "draft", 1);
    const byte = await logSize();
    await writeFile(path.join(root, VIEW), await formatOneFile(byte, { a: { record: { id: "a", state: "draft", v: 1 }, mark: "v1" } }));
    expect(await load()).toEqual({ a: { record: { id: "a", state: "draft", v: 1 }, mark: "v1" } });
    expect(JSON.parse(await readFile(path.join(root, VIEW), "utf8"))).toMatchObject({
      view: { schema_version: 2, folded_to_byte: byte },
      records: [{ id: "a" }],
    });
  });

  it.each([
    ["fails its check", () => '{"id":"a","state":"ready","v":-4}'],
    ["is not JSON", () => '{"id":"a","state":"ready" "v":4}'],
  ])("starts on a view whose record %s, and refuses that record with MEMORY_RECORD_CORRUPT when it is read, changing nothing", async (_name, bad) => {
    await viewThenTail();
    await load();
    await editViewRecords(path.join(root, VIEW), (id, text) => (id === "a" ? bad() : text));
    const before = await readFile(path.join(root, VIEW), "utf8");
    foldsFrom = [];
    const { records, marks } = await loadLogView(counted(), spec, check);
    // Only the index was read at the start: the view was trusted and no record parsed.
    expect(foldsFrom).toEqual([await logSize()]);
    expect(marks.get("a")).toEqual(["v4"]);
    expect(records.get("c")).toEqual({ id: "c", state: "draft", v: 5 });
    expect(() => records.get("a")).toThrow(expect.objectContaining({ code: "MEMORY_RECORD_CORRUPT" }));
    expect(() => [...records.values()]).toThrow(expect.objectContaining({ code: "MEMORY_RECORD_CORRUPT" }));
    expect(records.has("a")).toBe(true);
    expect(await readFile(path.join(root, VIEW), "utf8")).toBe(before);
  });

  it("reads each record of a view when first asked for as the whole log's fold has it, over random records, updates and removals", async () => {
    const random = seeded(32);
    const ids = Array.from({ length: 40 }, (_, n) => `r${n}`);
    const randomSpec: LogViewSpec<{ id: string; gone?: true; data?: unknown }> = {
      log: LOG,
      view: VIEW,
      line: z.object({ id: z.string(), gone: z.literal(true).optional(), data: z.json().optional() }),
      change: (line) => (line.gone === true ? { id: line.id, put: false } : { id: line.id, put: true, record: line }),
      // A mark on some versions, from the version before (read from the view's bytes when it is kept there).
      marks: (previous, record) =>
        JSON.stringify(record).length % 3 === 0 ? [] : [`${JSON.stringify(previous?.record ?? null).length}`, ...(previous?.marks.slice(0, 2) ?? [])],
    };
    const passThrough = (_id: string, record: unknown) => record;
    for (let round = 0; round < 4; round += 1) {
      for (let n = 0; n < 60; n += 1) {
        const id = ids[Math.floor(random() * ids.length)] ?? "r0";
        await store.append(LOG, random() < 0.15 ? { id, gone: true } : { id, data: randomJson(random) });
      }
      // Each round: the view read lazily (written by the round before, plus this round's tail), then the whole log folded eagerly.
      const lazy = await loadLogView(store, randomSpec, passThrough);
      const eager = await loadLogView(store, { ...randomSpec, view: "system/test/eager_current.json" }, passThrough);
      await store.remove("system/test/eager_current.json");
      expect([...lazy.records.keys()]).toEqual([...eager.records.keys()]);
      expect(Object.fromEntries(lazy.records)).toEqual(Object.fromEntries(eager.records));
      expect(lazy.marks).toEqual(eager.marks);
    }
  });

  it("a keeper brings the view up to date every 200 appends, so a start folds at most that many lines", async () => {
    await load();
    const keeper = createLogViewKeeper(counted(), spec, check);
    for (let n = 0; n < 199; n += 1) {
      await put(`i${n % 7}`, n % 3 === 0 ? "ready" : "draft", n);
      await keeper.noteAppend();
    }
    foldsFrom = [];
    await put("last", "draft", 199);
    await keeper.noteAppend();
    expect(foldsFrom).toEqual([0]);
    foldsFrom = [];
    expect(await load()).toEqual(await foldedFromLog());
    expect(foldsFrom).toEqual([await logSize()]);
  });
});

describe("issue 32: a log whose records start-up does not need (openLogView)", () => {
  /** The view file kept with its index's first byte count one too many, and its digest made to match: it does not lay out. */
  async function spoilLayout(): Promise<void> {
    const text = await readFile(path.join(root, VIEW), "utf8");
    await writeFile(
      path.join(root, VIEW),
      redigested(text, (body) => body.replace(/"index":\[\["([^"]+)",(\d+)/, (_all, id: string, bytes: string) => `"index":[["${id}",${Number(bytes) + 1}`)),
    );
  }

  it("opens a current view without laying out its index: one that does not lay out is refused at the first read, then rebuilt from the log", async () => {
    await viewThenTail();
    await load();
    await spoilLayout();
    foldsFrom = [];
    // loadLogView would not trust it, and would fold the whole log now.
    const opened = await openLogView(counted(), spec, check);
    expect(foldsFrom).toEqual([]);
    expect(() => opened()).toThrow(expect.objectContaining({ code: "MEMORY_RECORD_CORRUPT" }));
    // The first refusal started the rebuild: the whole log folded, and reads answer from it once it is done.
    const rebuilt = await vi.waitFor(() => opened());
    expect(foldsFrom).toEqual([0]);
    expect(entriesOf(rebuilt)).toEqual(await foldedFromLog());
    // The view was written again, and lays out: the next start trusts it and folds nothing.
    foldsFrom = [];
    expect(entriesOf((await openLogView(counted(), spec, check))())).toEqual(await foldedFromLog());
    expect(foldsFrom).toEqual([]);
  });

  it("reads only a current view's head at the open, and the file whole at the first read, as the whole log's fold has it; it folds nothing", async () => {
    await viewThenTail();
    await load();
    foldsFrom = [];
    viewReads = [];
    const read = await openLogView(counted(), spec, check);
    expect(foldsFrom).toEqual([]);
    // A few hundred bytes from the file's start, whatever the number of records.
    expect(viewReads).toEqual([["readBytesAt", 0, VIEW_HEAD_BYTES]]);
    expect(VIEW_HEAD_BYTES).toBeLessThan(512);
    expect(entriesOf(read())).toEqual(await foldedFromLog());
    expect(viewReads.slice(1)).toEqual([["readBytesSync"]]);
    read();
    expect(viewReads).toHaveLength(2);
    // The same records at every read: the first read's, changes included.
    read().records.set("z", { id: "z", state: "draft", v: 9 });
    expect(read().records.get("z")).toEqual({ id: "z", state: "draft", v: 9 });
  });

  it.each([
    ["before the open", true],
    ["after the open", false],
  ])("refuses a current view changed on disk %s at the first read (its digest no longer matches), then rebuilds it from the log", async (_when, before) => {
    await viewThenTail();
    await load();
    const view = path.join(root, VIEW);
    // One record's bytes changed, its head and digest left as they were.
    const spoil = async () => writeFile(view, (await readFile(view, "utf8")).replace('"v":4', '"v":8'));
    if (before) await spoil();
    foldsFrom = [];
    const opened = await openLogView(counted(), spec, check);
    if (!before) await spoil();
    expect(foldsFrom).toEqual([]);
    expect(() => opened()).toThrow(expect.objectContaining({ code: "MEMORY_RECORD_CORRUPT" }));
    const rebuilt = await vi.waitFor(() => opened());
    expect(foldsFrom).toEqual([0]);
    expect(entriesOf(rebuilt)).toEqual(await foldedFromLog());
    expect(entriesOf(rebuilt)).toMatchObject({ a: { record: { v: 4 } } });
  });

  it.each([
    ["behind its log", "the tail", async () => undefined],
    ["missing", "the whole log", async () => store.remove(VIEW)],
    [
      "changed on disk",
      "the whole log",
      async () => writeFile(path.join(root, VIEW), (await readFile(path.join(root, VIEW), "utf8")).replace('"v":2', '"v":7')),
    ],
  ])("reads a view %s at the open, as loadLogView does (%s folded, every version from it checked)", async (_name, folded, spoil) => {
    const byte = await viewThenTail();
    await spoil();
    const read = await openLogView(counted(), spec, check);
    expect(foldsFrom).toEqual([folded === "the tail" ? byte : 0]);
    expect(entriesOf(read())).toEqual(await foldedFromLog());
  });

  it("a keeper's settle brings a view behind its log up to its last byte, and writes nothing when nothing was appended", async () => {
    await load();
    const keeper = createLogViewKeeper(counted(), spec, check);
    const written = async () => (await stat(path.join(root, VIEW))).ino;
    const before = await written();
    await keeper.settle();
    expect(await written()).toBe(before);
    await put("a", "draft", 1);
    await keeper.noteAppend();
    await keeper.settle();
    expect(JSON.parse(await readFile(path.join(root, VIEW), "utf8"))).toMatchObject({ view: { folded_to_byte: await logSize() } });
    foldsFrom = [];
    await openLogView(counted(), spec, check);
    expect(foldsFrom).toEqual([]);
  });
});

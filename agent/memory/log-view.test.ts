import { createHash } from "node:crypto";
import { appendFile, mkdtemp, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError } from "../errors/app-error";
import { createLogViewKeeper, loadLogView, type LogViewSpec } from "./log-view";
import { openMemoryStore, type MemoryStore } from "./memory-store";

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
  mark: (previous, record) => {
    const item = record as { state: string; v: number };
    return previous === undefined || (previous.record as { state: string }).state !== item.state ? `v${item.v}` : previous.mark;
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

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "elnor-log-view-"));
  store = await openMemoryStore({ root });
  foldsFrom = [];
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

/** The store with the log's folds counted. */
function counted(): MemoryStore {
  return new Proxy(store, {
    get(target, member, receiver) {
      const value = Reflect.get(target, member, receiver) as unknown;
      if (member !== "forEachJsonlFrom" || typeof value !== "function") return value;
      return (relative: string, schema: unknown, from: number, visit: unknown) => {
        if (relative === LOG) foldsFrom.push(from);
        return (value as (...args: unknown[]) => unknown).call(target, relative, schema, from, visit);
      };
    },
  });
}

const put = (id: string, state: string, v: number) => store.append(LOG, { id, state, v });

/** What folding the whole log gives, from a store with no view: the source of truth. */
async function foldedFromLog(): Promise<Record<string, unknown>> {
  const { entries } = await loadLogView(counted(), { ...spec, view: "system/test/scratch_current.json" }, check);
  await store.remove("system/test/scratch_current.json");
  foldsFrom.pop();
  return Object.fromEntries(entries);
}

const load = async () => Object.fromEntries((await loadLogView(counted(), spec, check)).entries);
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

/** The view file with its view's `schema_version` changed and its digest made to match, as an agent of another version would write it. */
function reformatted(text: string): string {
  const body = text
    .trimEnd()
    .slice(text.indexOf('"view":') + 7, -1)
    .replace('"schema_version":1}', '"schema_version":2}');
  return `{"sha256":"${createHash("sha256").update(body).digest("hex")}","view":${body}}\n`;
}

/** The view file with its view's text edited and its digest made to match. */
function redigested(text: string, edit: (body: string) => string): string {
  const body = edit(text.trimEnd().slice(text.indexOf('"view":') + 7, -1));
  return `{"sha256":"${createHash("sha256").update(body).digest("hex")}","view":${body}}\n`;
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
    ["of another format (digest right, view of another version)", (text: string) => reformatted(text)],
    [
      "holding an entry without its record (digest right)",
      (text: string) => redigested(text, (body) => body.replace(/\{"record":\{"id":"a"[^}]*\}/, '{"kept":{}')),
    ],
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

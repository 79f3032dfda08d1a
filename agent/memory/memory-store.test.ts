import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError } from "../errors/app-error";
import { openMemoryStore, type MemoryStore } from "./memory-store";
import { MemoryPaths, resolveMemoryPath } from "./memory-paths";

const Seq = z.object({ seq: z.number().int() });

let root: string;
let store: MemoryStore | undefined;

// A bare temp folder, not test-support's: test-support is built on this store.
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "elnor-memory-"));
});
afterEach(async () => {
  await store?.close();
  store = undefined;
  await rm(root, { recursive: true, force: true });
});

async function rejectsWithCode(promise: Promise<unknown>, code: string) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe(code);
}

describe("memory paths", () => {
  it.each([
    ["../outside.json"],
    ["system/../../etc/passwd"],
    ["/etc/passwd"],
    ["system\\agent\\token"],
    ["system//token"],
    ["system/.hidden"],
    ["system/a\u0000b"],
    [""],
    ["system/learning/observations/../../agent/token"],
  ])("rejects %j with MEMORY_PATH_INVALID", (relative) => {
    expect(() => resolveMemoryPath("/tmp/root", relative)).toThrowError(expect.objectContaining({ code: "MEMORY_PATH_INVALID" }));
  });

  it("rejects an id that would escape when placed in a path template", () => {
    expect(() => MemoryPaths.observationEvents("../x")).toThrowError(expect.objectContaining({ code: "MEMORY_PATH_INVALID" }));
  });

  it("resolves a plain path inside the root", () => {
    expect(resolveMemoryPath("/tmp/root", "system/learning/receipts.jsonl")).toBe("/tmp/root/system/learning/receipts.jsonl");
  });
});

describe("memory store", () => {
  it("replaces a current view atomically and leaves no temp file behind", async () => {
    store = await openMemoryStore({ root });
    await store.writeJson("system/learning/runtime/current.json", { seq: 1 });
    await store.writeJson("system/learning/runtime/current.json", { seq: 2 });
    expect(await store.readJson("system/learning/runtime/current.json", Seq)).toEqual({ seq: 2 });
    expect(await store.list("system/learning/runtime")).toEqual(["current.json"]);
  });

  it("refuses to read a current view that does not match its schema", async () => {
    store = await openMemoryStore({ root });
    await store.writeJson("system/learning/runtime/current.json", { seq: "one" });
    await rejectsWithCode(store.readJson("system/learning/runtime/current.json", Seq), "MEMORY_RECORD_CORRUPT");
  });

  it("keeps every record of concurrent appends, one line each", async () => {
    store = await openMemoryStore({ root });
    const open = store;
    await Promise.all(Array.from({ length: 200 }, (_, seq) => open.append("system/learning/receipts.jsonl", { seq })));
    const records = await store.readJsonl("system/learning/receipts.jsonl", Seq);
    expect(records.map((record) => record.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it("cuts a torn last line before the next append and loses no complete record", async () => {
    const file = path.join(root, "system/learning/receipts.jsonl");
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '{"seq":0}\n{"seq":1}\n{"seq":');
    store = await openMemoryStore({ root });
    // A reader never sees the torn line…
    expect(await store.readJsonl("system/learning/receipts.jsonl", Seq)).toEqual([{ seq: 0 }, { seq: 1 }]);
    // …and the writer removes it before appending.
    await store.append("system/learning/receipts.jsonl", { seq: 2 });
    expect(await readFile(file, "utf8")).toBe('{"seq":0}\n{"seq":1}\n{"seq":2}\n');
  });

  it("reports a corrupt line in the middle of a log instead of skipping it", async () => {
    const file = path.join(root, "system/learning/receipts.jsonl");
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '{"seq":0}\nnot json\n{"seq":2}\n');
    store = await openMemoryStore({ root });
    await rejectsWithCode(store.readJsonl("system/learning/receipts.jsonl", Seq), "MEMORY_RECORD_CORRUPT");
  });

  it("reads only the lines of a large log that contain a key, across chunk boundaries and multi-byte text (issue 17)", async () => {
    const Line = z.object({ seq: z.number().int(), key: z.string(), note: z.string() });
    const file = path.join(root, "system/learning/receipts.jsonl");
    await mkdir(path.dirname(file), { recursive: true });
    // ~3 MB over many 1 MB reads; the notes carry multi-byte characters so some land on a boundary.
    const lines = Array.from({ length: 20_000 }, (_, seq) =>
      JSON.stringify({ seq, key: seq % 997 === 0 ? "wanted-key" : `other-${seq % 13}`, note: `é€🙂 ${"x".repeat(seq % 211)}` }),
    );
    await writeFile(file, `${lines.join("\n")}\n{"seq":99999,"key":"wanted-key"`);
    store = await openMemoryStore({ root });
    const kept = await store.readJsonlContaining("system/learning/receipts.jsonl", Line, "wanted-key");
    const expected = (await store.readJsonl("system/learning/receipts.jsonl", Line)).filter((line) => line.key === "wanted-key");
    expect(kept).toEqual(expected);
    expect(kept.map((line) => line.seq)).toEqual(Array.from({ length: 21 }, (_, index) => index * 997));
    expect(await store.readJsonlContaining(MemoryPaths.answers, Line, "wanted-key")).toEqual([]);
  });

  it("reports a corrupt line it keeps, with its line number", async () => {
    const file = path.join(root, "system/learning/receipts.jsonl");
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '{"seq":0}\n{"seq":"k"\n{"seq":2}\n');
    store = await openMemoryStore({ root });
    const error = await store.readJsonlContaining("system/learning/receipts.jsonl", Seq, '"k"').catch((caught: unknown) => caught);
    expect((error as AppError).code).toBe("MEMORY_RECORD_CORRUPT");
    expect((error as AppError).message).toContain("line 2");
    expect(await store.readJsonlContaining("system/learning/receipts.jsonl", Seq, '"seq":2')).toEqual([{ seq: 2 }]);
  });

  it("hands each record of a log to a fold as it is read, in order, across chunks, without the torn last line (issue 17)", async () => {
    const file = path.join(root, "system/learning/receipts.jsonl");
    await mkdir(path.dirname(file), { recursive: true });
    const lines = Array.from({ length: 12_000 }, (_, seq) => JSON.stringify({ seq, note: `é€🙂 ${"x".repeat(seq % 173)}` }));
    await writeFile(file, `${lines.join("\n")}\n{"seq":99999`);
    store = await openMemoryStore({ root });
    const seen: Array<[number, number]> = [];
    await store.forEachJsonl("system/learning/receipts.jsonl", Seq, (record, line) => void seen.push([record.seq, line]));
    expect(seen).toEqual(Array.from({ length: 12_000 }, (_, seq) => [seq, seq + 1]));
    await store.forEachJsonl(MemoryPaths.answers, Seq, () => expect.unreachable("an absent log has no records"));
  });

  it("stops a fold at a corrupt line and names it", async () => {
    const file = path.join(root, "system/learning/receipts.jsonl");
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '{"seq":0}\n{"seq":"k"}\n{"seq":2}\n');
    store = await openMemoryStore({ root });
    const seen: number[] = [];
    const error = await store.forEachJsonl("system/learning/receipts.jsonl", Seq, (record) => void seen.push(record.seq)).catch((caught: unknown) => caught);
    expect((error as AppError).code).toBe("MEMORY_RECORD_CORRUPT");
    expect((error as AppError).message).toContain("line 2");
    expect(seen).toEqual([0]);
  });

  it("reads the last records of a log that contain a key from its end, as reading it from the start would find them (issue 17)", async () => {
    const Line = z.object({ seq: z.number().int(), key: z.string(), note: z.string() });
    const file = path.join(root, "system/learning/receipts.jsonl");
    await mkdir(path.dirname(file), { recursive: true });
    // Several 1 MB chunks, multi-byte text across their edges, a line longer than a chunk, a line
    // that names the key in its note only, and a torn last line that names it too.
    const lines = Array.from({ length: 30_000 }, (_, seq) =>
      JSON.stringify({
        seq,
        key: seq % 1_201 === 0 ? "wanted-key" : `other-${seq % 13}`,
        note: seq === 29_000 ? "mentions wanted-key" : seq === 20_000 ? "y".repeat(1_500_000) : `é€🙂 ${"x".repeat(seq % 211)}`,
      }),
    );
    await writeFile(file, `${lines.join("\n")}\n{"seq":99999,"key":"wanted-key"`);
    store = await openMemoryStore({ root });
    const all = (await store.readJsonl("system/learning/receipts.jsonl", Line)).filter((line) => line.key === "wanted-key");
    expect(all.length).toBe(25);
    const wanted = (record: z.infer<typeof Line>) => record.key === "wanted-key";
    for (const count of [1, 10, 25, 40]) {
      expect(await store.readJsonlLast("system/learning/receipts.jsonl", Line, "wanted-key", count, wanted)).toEqual(all.slice(-count));
    }
    // Without `keep`, a line that only mentions the key counts too.
    expect((await store.readJsonlLast("system/learning/receipts.jsonl", Line, "wanted-key", 1)).map((line) => line.seq)).toEqual([29_000]);
    expect(await store.readJsonlLast(MemoryPaths.answers, Line, "wanted-key", 10)).toEqual([]);
    await writeFile(path.join(root, MemoryPaths.answers), "");
    expect(await store.readJsonlLast(MemoryPaths.answers, Line, "wanted-key", 10)).toEqual([]);
    // Issue 32: the first read from the end is small and each next one larger: a last line many times its size, of
    // multi-byte text at every offset (1 to 4 bytes a character), is read whole, and so is the line before it.
    const long = (seq: number) => ({ seq, key: "wanted-key", note: "aé€🙂".repeat(7_001 + seq) });
    await writeFile(path.join(root, MemoryPaths.answers), `${JSON.stringify(long(1))}\n${JSON.stringify(long(2))}\n`);
    expect(await store.readJsonlLast(MemoryPaths.answers, Line, "wanted-key", 2)).toEqual([long(1), long(2)]);
  });

  it("issue 32: forEachJsonlFrom reads only what a log gained since an offset it returned, never a torn line", async () => {
    store = await openMemoryStore({ root });
    const log = MemoryPaths.checkpointReceipts;
    await store.appendMany(log, [{ seq: 1 }, { seq: 2 }]);
    const seen: number[] = [];
    const end = await store.forEachJsonlFrom(log, Seq, 0, (line) => void seen.push(line.seq));
    expect(seen).toEqual([1, 2]);
    expect(end).toBe((await stat(path.join(root, log))).size);
    await store.append(log, { seq: 3 });
    await writeFile(path.join(root, log), '{"seq": 4', { flag: "a" });
    const later: number[] = [];
    const next = await store.forEachJsonlFrom(log, Seq, end, (line) => void later.push(line.seq));
    expect(later).toEqual([3]);
    expect(await store.forEachJsonlFrom(log, Seq, next, () => expect.fail("nothing new"))).toBe(next);
    // A log shorter than the offset was replaced: the caller folds it again from the start.
    expect(await store.forEachJsonlFrom(log, Seq, next + 1_000, () => expect.fail("not read"))).toBe(-1);
    expect(await store.forEachJsonlFrom(MemoryPaths.answers, Seq, 0, () => expect.fail("absent"))).toBe(0);
  });

  it("reports a corrupt line it reaches from the end, and reads no further back than it needs", async () => {
    const file = path.join(root, "system/learning/receipts.jsonl");
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '{"seq":"k"}\n{"seq":1}\n{"seq":2}\n');
    store = await openMemoryStore({ root });
    expect(await store.readJsonlLast("system/learning/receipts.jsonl", Seq, "seq", 2)).toEqual([{ seq: 1 }, { seq: 2 }]);
    const error = await store.readJsonlLast("system/learning/receipts.jsonl", Seq, "seq", 3).catch((caught: unknown) => caught);
    expect((error as AppError).code).toBe("MEMORY_RECORD_CORRUPT");
    expect((error as AppError).message).toContain("line 3 from the end");
  });

  it("refuses paths that escape the root on every operation", async () => {
    store = await openMemoryStore({ root });
    await rejectsWithCode(store.writeJson("../escape.json", {}), "MEMORY_PATH_INVALID");
    await rejectsWithCode(store.append("system/../../escape.jsonl", {}), "MEMORY_PATH_INVALID");
    await rejectsWithCode(store.remove("/etc"), "MEMORY_PATH_INVALID");
    expect(await store.list("..").catch((error: AppError) => error.code)).toBe("MEMORY_PATH_INVALID");
  });

  it("lets a second store on the same root refuse to open with a clear message", async () => {
    store = await openMemoryStore({ root });
    const second = openMemoryStore({ root });
    await rejectsWithCode(second, "MEMORY_LOCKED");
    await expect(second).rejects.toThrow(/Another elnor-learn agent \(pid \d+\) is using ELNOR_MEMORY/);
  });

  it("takes over a lock left by a process that no longer exists", async () => {
    const lock = path.join(root, "system/agent/lock");
    await mkdir(path.dirname(lock), { recursive: true });
    // pid 2^22+1 is above Linux's pid_max default, so no live process holds it.
    await writeFile(lock, JSON.stringify({ pid: 4194305, host: "gone", started_at: new Date().toISOString() }));
    store = await openMemoryStore({ root });
    expect(JSON.parse(await readFile(lock, "utf8")).pid).toBe(process.pid);
  });

  it("releases the lock on close so another agent can open the root", async () => {
    const first = await openMemoryStore({ root });
    await first.close();
    store = await openMemoryStore({ root });
    expect(await store.exists(MemoryPaths.agentLock)).toBe(true);
  });

  it("writes text files with the requested mode", async () => {
    store = await openMemoryStore({ root });
    await store.writeText("system/agent/token", "secret\n", { mode: 0o600 });
    expect((await stat(path.join(root, "system/agent/token"))).mode & 0o777).toBe(0o600);
  });

  it("removes a folder tree even while one of its logs is open", async () => {
    store = await openMemoryStore({ root });
    await store.append(MemoryPaths.observationEvents("s1"), { seq: 1 });
    await store.remove("system/learning/observations/s1");
    expect(await store.exists("system/learning/observations/s1")).toBe(false);
    await store.append(MemoryPaths.observationEvents("s1"), { seq: 2 });
    expect(await store.readJsonl(MemoryPaths.observationEvents("s1"), Seq)).toEqual([{ seq: 2 }]);
  });
});

describe("memory store under SIGKILL", () => {
  const child = fileURLToPath(new URL("../test-support/append-child.ts", import.meta.url));

  it("loses no acknowledged record and leaves no corrupt line when the writer is killed mid-append", async () => {
    for (let round = 0; round < 3; round += 1) {
      const acknowledged = await new Promise<number[]>((resolve, reject) => {
        const proc = spawn(process.execPath, ["--import", "tsx", child, root], { stdio: ["ignore", "pipe", "pipe"] });
        const acks: number[] = [];
        let buffered = "";
        let stderr = "";
        proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        proc.stdout.on("data", (chunk: Buffer) => {
          buffered += chunk.toString();
          const lines = buffered.split("\n");
          buffered = lines.pop() ?? "";
          for (const line of lines) acks.push(Number(line));
          // Kill at a different depth each round, while appends are in flight.
          if (acks.length >= 150 + round * 97 && proc.exitCode === null && !proc.killed) proc.kill("SIGKILL");
        });
        proc.on("exit", (_code, signal) => {
          if (signal === "SIGKILL") resolve(acks);
          else reject(new Error(`child exited without being killed: ${stderr}`));
        });
      });
      expect(acknowledged.length).toBeGreaterThan(0);
      // The dead child's lock is stale: a new store opens, repairs and reads everything back.
      const reopened = await openMemoryStore({ root });
      const seqs = new Set((await reopened.readJsonl("system/learning/receipts.jsonl", Seq)).map((record) => record.seq));
      for (const seq of acknowledged) expect(seqs.has(seq)).toBe(true);
      await reopened.append("system/learning/receipts.jsonl", { seq: -1 - round });
      const after = await reopened.readJsonl("system/learning/receipts.jsonl", Seq);
      expect(after.at(-1)).toEqual({ seq: -1 - round });
      await reopened.close();
    }
  }, 60_000);
});

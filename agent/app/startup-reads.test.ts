import { readdir, rm, stat, utimes } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AbilityAvailabilitySnapshotSchema } from "../../shared/abilities/availability";
import { LearningRuntimeSnapshotSchema } from "../../shared/learning/sessions/runtime-snapshot";
import { CheckpointHealthCurrentSchema, rebuildCheckpointHealth } from "../abilities/checkpoint-health";
import { appendCheckpointReceipt } from "../abilities/checkpoint-receipts";
import { openMemoryStore, type MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import { readyProposal } from "../test-support/ready-proposal";
import { createFakeClock, startTestAgent, TEST_PORT, type FakeClock, type TestAgent } from "../test-support/test-agent";
import { agentLoggerOptions, buildApp } from "./app";
import { MEMORY_READER_NAMES } from "../memory/memory-readers";
import { VIEW_HEAD_BYTES } from "../memory/log-view-file";

/** One read a memory store was asked for: the method, the path and the arguments after its schema. */
interface Read {
  method: string;
  path: string;
  rest: unknown[];
}

/** The store the agent uses, every read counted on the way through. */
function countingReads(memory: MemoryStore): { memory: MemoryStore; reads: Read[] } {
  const reads: Read[] = [];
  const counted = new Proxy(memory, {
    get(target, member, receiver) {
      const value = Reflect.get(target, member, receiver) as unknown;
      if (typeof member !== "string" || !MEMORY_READER_NAMES.has(member) || typeof value !== "function") return value;
      return (relative: string, ...rest: unknown[]) => {
        reads.push({ method: member, path: relative, rest: rest.slice(1) });
        return (value as (...args: unknown[]) => unknown).call(target, relative, ...rest);
      };
    },
  });
  return { memory: counted, reads };
}

/** Logs that keep every event of history: start-up may read a tail line of one, or what it gained since a view, never the whole. */
const HISTORY_LOGS: string[] = [
  MemoryPaths.receipts,
  MemoryPaths.checkpointReceipts,
  MemoryPaths.sessionEvents,
  MemoryPaths.boundaries,
  MemoryPaths.capabilityUseReceipts,
  MemoryPaths.activationHistory,
  "system/skills/import/requests.jsonl",
];

/** A read of the whole of a history log (a tail line, or the bytes after a view's offset, are not). */
function wholeHistoryRead(read: Read): boolean {
  if (!HISTORY_LOGS.includes(read.path)) return false;
  // A log's length, and its last bytes (how the views stamp names a log: agent/abilities/views-stamp.ts).
  if (read.method === "sizeOf") return false;
  // readBytesAt(path, from, length): its arguments after `from`.
  if (read.method === "readBytesAt") return (read.rest[0] as number) > 512;
  // readJsonlLast(path, schema, containing, count); forEachJsonlFrom(path, schema, from, visit).
  if (read.method === "readJsonlLast") return read.rest[0] !== "" || read.rest[1] !== 1;
  if (read.method === "forEachJsonlFrom") return read.rest[0] === 0;
  return true;
}

/** Issue 32: logs of every version of a record, read at start-up through the compact current view kept next to each. */
const VIEWED_LOGS: Array<[string, string]> = [
  [MemoryPaths.sessions, MemoryPaths.sessionsCurrent],
  [MemoryPaths.proposals, MemoryPaths.proposalsCurrent],
  [MemoryPaths.abilityRegistry, MemoryPaths.abilityRegistryCurrent],
];

/** The byte of its log a current view was folded up to (the view file holds it under `view`; agent/memory/log-view.ts). */
async function viewByte(root: string, view: string): Promise<number | undefined> {
  const store = await openMemoryStore({ root });
  try {
    const text = await store.readText(view);
    return text === undefined ? undefined : (JSON.parse(text) as { view: { folded_to_byte: number } }).view.folded_to_byte;
  } finally {
    await store.close();
  }
}

/** The views derived from the registry that start-up rewrote at every start before issue 32. */
const DERIVED_VIEWS = [MemoryPaths.bridgeEntriesCurrent, MemoryPaths.availabilityCurrent, MemoryPaths.catalogCurrent];

let agent: TestAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** A memory with history: learned and installed abilities (sessions, scopes, proposals, receipts, checkpoint receipts). */
async function memoryWithHistory(clock: FakeClock): Promise<{ sessionIds: string[]; abilityIds: string[] }> {
  agent = await startTestAgent({ clock, chromiumPath: "/nonexistent" });
  const call = async (method: "GET" | "POST", url: string, payload?: unknown) => agent!.call(method, url, payload);
  const sessionIds: string[] = [];
  const abilityIds: string[] = [];
  for (const goal of ["Export the monthly invoices", "Archive the closed support tickets"]) {
    const { sessionId, proposalId } = await readyProposal(call, goal);
    const installed = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
    expect(installed.status).toBe(200);
    sessionIds.push(sessionId);
    abilityIds.push(String(installed.body.ability_id));
    for (const status of ["reached", "failed", "reached"] as const) {
      const fields = {
        dispatch_id: crypto.randomUUID(),
        ability_id: String(installed.body.ability_id),
        checkpoint_id: "c1",
        status,
        evidence: "The export is listed",
      };
      await appendCheckpointReceipt(agent.memory, fields, clock.now().toISOString());
    }
    clock.advance(60_000);
  }
  await agent.app.close();
  await agent.memory.close();
  return { sessionIds, abilityIds };
}

/** Starts the agent on `root` with a counting store, runs `check` while it listens, then stops it. */
async function startCounted(root: string, clock: FakeClock, check: (reads: Read[], memory: MemoryStore, address: string) => Promise<void>): Promise<void> {
  const { memory, reads } = countingReads(await openMemoryStore({ root }));
  const app = await buildApp({ memory, port: TEST_PORT, clock, logger: agentLoggerOptions("silent"), chromiumPath: "/nonexistent" });
  try {
    await check(reads, memory, await app.listen({ host: "127.0.0.1", port: 0 }));
  } finally {
    await app.close();
    await memory.close();
  }
}

describe("issue 32: start-up reads current views, not history", () => {
  it("reads no per-session file and no whole history log before listening; a request that needs a session reads its file then", async () => {
    const clock = createFakeClock();
    const { sessionIds, abilityIds } = await memoryWithHistory(clock);
    await startCounted(agent!.root, clock, async (reads, memory, address) => {
      const perSession = reads.filter((read) => [...sessionIds, ...abilityIds].some((id) => read.path.includes(id)));
      expect(perSession).toEqual([]);
      expect(reads.filter((read) => read.path.includes("observation_scopes/"))).toEqual([]);
      expect(reads.filter(wholeHistoryRead)).toEqual([]);
      // The checkpoint-health view was brought up to date from the log's new bytes only.
      expect(reads.some((read) => read.method === "forEachJsonlFrom" && read.path === MemoryPaths.checkpointReceipts)).toBe(true);

      const token = ((await memory.readText(MemoryPaths.agentToken)) ?? "").trim();
      const first = sessionIds[0] ?? "";
      const scope = await fetch(`${address}/api/learn/sessions/${first}/observation-scope`, { headers: { authorization: `Bearer ${token}` } });
      expect(scope.status).toBe(200);
      expect(((await scope.json()) as { learn_session_id: string }).learn_session_id).toBe(first);
      expect(reads.filter((read) => read.path === MemoryPaths.observationScope(first))).toHaveLength(1);
    });
  });

  it("brings the sessions, proposals and registry views up to date at the stop; the next start folds only from their byte, and not at all where a view is current", async () => {
    const clock = createFakeClock();
    await memoryWithHistory(clock);
    const root = agent!.root;
    // The agent that wrote the logs noted fewer appends than a refresh takes: its stop brought each view up to the log's last byte.
    const bytes = new Map<string, number>();
    for (const [log, view] of VIEWED_LOGS) {
      const byte = await viewByte(root, view);
      expect(byte, view).toBe((await stat(path.join(root, log))).size);
      bytes.set(log, byte ?? 0);
    }
    await startCounted(root, clock, async (reads) => {
      const folds = (log: string) =>
        reads
          .filter((read) => read.path === log && !["readBytesAt", "sizeOf"].includes(read.method))
          .map((read) => ({ method: read.method, from: read.rest[0] }));
      // The sessions: one fold of what the log gained since its view (nothing here), from the view's byte.
      expect(folds(MemoryPaths.sessions)).toEqual([{ method: "forEachJsonlFrom", from: bytes.get(MemoryPaths.sessions) }]);
      // The proposals and the registry: their views are current (the log's length and last bytes say so), so nothing is folded.
      expect(folds(MemoryPaths.proposals)).toEqual([]);
      expect(folds(MemoryPaths.abilityRegistry)).toEqual([]);
    });
    // That start rewrote the derived views (checkpoint receipts were appended behind the agent's back), which reads every
    // ability. The next finds them as written: of the proposals' and the registry's views only the head is read, a few
    // hundred bytes however many records they hold (the rest when a request first needs them).
    await startCounted(root, clock, async (reads) => {
      for (const view of [MemoryPaths.proposalsCurrent, MemoryPaths.abilityRegistryCurrent]) {
        expect(
          reads.filter((read) => read.path === view).map((read) => [read.method, ...read.rest]),
          view,
        ).toEqual([["readBytesAt", VIEW_HEAD_BYTES]]);
      }
    });
  });

  it("rewrites the bridge, availability snapshot and catalog at start-up only when what they are written from changed", async () => {
    const clock = createFakeClock();
    await memoryWithHistory(clock);
    const root = agent!.root;
    await startCounted(root, clock, async () => undefined);
    // Each view is replaced by a rename when written: a new inode and time say it was written.
    const written = async () =>
      Promise.all(
        DERIVED_VIEWS.map(async (view) => {
          const info = await stat(path.join(root, view));
          return `${info.ino}:${info.mtimeMs}`;
        }),
      );
    const first = await written();
    await startCounted(root, clock, async () => undefined);
    expect(await written()).toEqual(first);
    // A view lost: all three are written again.
    await rm(path.join(root, MemoryPaths.catalogCurrent));
    await startCounted(root, clock, async () => undefined);
    const second = await written();
    expect(second.map((ino, index) => ino !== first[index])).toEqual([true, true, true]);
    // A skill's files changed while the agent was stopped (its SKILL.md touched, as by the assistant or a person): the
    // snapshot and catalog are written again by the folder check the agent runs once ready, and the first read of the
    // snapshot waits for it (the bridge is written from the registry alone).
    const skills = path.join(root, "openclaw-workspace", "skills");
    const [skill] = await readdir(skills);
    await utimes(path.join(skills, skill ?? "", "SKILL.md"), new Date(), new Date(Date.now() + 60_000));
    await startCounted(root, clock, async (_reads, memory, address) => {
      const token = ((await memory.readText(MemoryPaths.agentToken)) ?? "").trim();
      const availability = await fetch(`${address}/api/abilities/availability`, { headers: { authorization: `Bearer ${token}` } });
      expect(availability.status).toBe(200);
      expect((await written()).map((ino, index) => ino !== second[index])).toEqual([false, true, true]);
    });
  });

  it("rebuilds a missing runtime view once from the files, equal to the one kept on write", async () => {
    const clock = createFakeClock();
    const { sessionIds } = await memoryWithHistory(clock);
    const root = agent!.root;
    const kept = await readView(root, MemoryPaths.runtimeCurrent);
    expect(kept?.learn_session_id).toBe(sessionIds[1]);
    // A memory whose views were lost (written before them, or a stop between a write and its views).
    const store = await openMemoryStore({ root });
    await store.remove(MemoryPaths.runtimeCurrent);
    await store.close();
    await startCounted(root, clock, async (reads) => {
      // The rebuild reads the current session's scope and its receipts from the log's end.
      expect(reads.some((read) => read.path === MemoryPaths.observationScope(sessionIds[1] ?? ""))).toBe(true);
    });
    const rebuilt = await readView(root, MemoryPaths.runtimeCurrent);
    expect({ ...rebuilt, snapshot_as_of: undefined }).toEqual({ ...kept, snapshot_as_of: undefined });
    // The next start finds the view up to date and reads no session's file.
    await startCounted(root, clock, async (reads) => {
      expect(reads.filter((read) => read.path.includes("observation_scopes/"))).toEqual([]);
    });
  });

  it("keeps the checkpoint-health view equal to one folded from the whole log, and the snapshot's health with it", async () => {
    const clock = createFakeClock();
    const { abilityIds } = await memoryWithHistory(clock);
    const root = agent!.root;
    await startCounted(root, clock, async () => undefined);
    const store = await openMemoryStore({ root });
    try {
      const kept = await store.readJson(MemoryPaths.checkpointHealthCurrent, CheckpointHealthCurrentSchema);
      expect(kept).toEqual(await rebuildCheckpointHealth(store));
      expect(kept?.statuses[abilityIds[0] ?? ""]).toEqual(["reached", "failed", "reached"]);
      const snapshot = await store.readJson(MemoryPaths.availabilityCurrent, AbilityAvailabilitySnapshotSchema);
      expect(snapshot?.abilities.find((entry) => entry.ability_id === abilityIds[0])?.checkpoint_health).toBe("weak");
    } finally {
      await store.close();
    }
  });
});

async function readView(root: string, relative: string) {
  const store = await openMemoryStore({ root });
  try {
    return await store.readJson(relative, LearningRuntimeSnapshotSchema);
  } finally {
    await store.close();
  }
}

import { z } from "zod";
import { RunEventKindSchema, RunRecordSchema, TERMINAL_RUN_STATES, type RunEventKind, type RunRecord } from "../../../shared/execution/run-contract";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths, assertMemorySegment } from "../../memory/memory-paths";

/** One line of a run's `<dispatch_id>.events.jsonl`: the SSE frame's id, its name and the whole run then. */
export const StoredRunEventSchema = z.object({ event_id: z.number().int().min(1), event: RunEventKindSchema, run: RunRecordSchema });
export type StoredRunEvent = z.infer<typeof StoredRunEventSchema>;

export interface RunStore {
  /** Replaces the run's record (atomically) and appends the event, in the order calls were made for that run. */
  save(run: RunRecord, event: RunEventKind): Promise<void>;
  get(dispatchId: string): Promise<RunRecord | undefined>;
  /** Newest first. */
  list(filter: { ability_id?: string | undefined }): Promise<RunRecord[]>;
  /** Events after `lastEventId`, in order. */
  eventsSince(dispatchId: string, lastEventId: number): Promise<StoredRunEvent[]>;
  /** Live events of one run; the returned function unsubscribes. */
  subscribe(dispatchId: string, listener: (event: StoredRunEvent) => void): () => void;
  /** Live events of every run, once each is written (the run-notice feed, issue #33); the returned function unsubscribes. */
  subscribeAll(listener: (event: StoredRunEvent) => void): () => void;
  /** Waits for every write queued so far. */
  settle(): Promise<void>;
  /**
   * Removes one run's files (issue #30): its screenshot and events first, its record last. A purge
   * cut short leaves the record, which the next sweep lists and purges again, or (after the
   * record's removal) nothing at all; never a record that names files already gone for good.
   */
  purge(dispatchId: string): Promise<void>;
  /** Dispatch ids with an events file or a screenshot but no record: what a purge cut short (or a lost record) left behind. */
  strays(): Promise<string[]>;
}

const EVENTS_SUFFIX = ".events.jsonl";
const SCREENSHOT_SUFFIX = ".png";
const RECORD_SUFFIX = ".json";

/** Dispatch ids this agent makes are plain memory segments; anything else names no stored run. */
function isStorable(dispatchId: string): boolean {
  try {
    assertMemorySegment(dispatchId);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs on disk (issue #21): `system/execution/runs/<dispatch_id>.json` is the run as it is now,
 * replaced atomically through the memory store; `<dispatch_id>.events.jsonl` is every frame the
 * events route has sent or will replay (`Last-Event-ID`). Writes of one run are chained, so the
 * record on disk is always the one of its last event.
 */
export function createRunStore(memory: MemoryStore): RunStore {
  /** Each run's queued writes (and purge), in the order they were asked for. */
  const chains = new Map<string, Promise<void>>();
  const lastIds = new Map<string, number>();
  const listeners = new Map<string, Set<(event: StoredRunEvent) => void>>();
  const everyRun = new Set<(event: StoredRunEvent) => void>();

  /** Work on one run, behind everything already queued for it; the chain forgets itself once idle. */
  const queue = (dispatchId: string, work: () => Promise<void>): Promise<void> => {
    const previous = chains.get(dispatchId) ?? Promise.resolve();
    const next = previous.then(work);
    const kept = next.catch(() => undefined);
    chains.set(dispatchId, kept);
    void kept.then(() => {
      if (chains.get(dispatchId) === kept) chains.delete(dispatchId);
    });
    return next;
  };

  const lastIdOf = async (dispatchId: string): Promise<number> => {
    const known = lastIds.get(dispatchId);
    if (known !== undefined) return known;
    const stored = await memory.readJsonl(MemoryPaths.runEvents(dispatchId), StoredRunEventSchema);
    return stored.at(-1)?.event_id ?? 0;
  };

  return {
    save: (run, event) =>
      queue(run.dispatch_id, async () => {
        const dispatchId = run.dispatch_id;
        const record = RunRecordSchema.parse(run);
        const stored: StoredRunEvent = { event_id: (await lastIdOf(dispatchId)) + 1, event, run: record };
        await memory.writeJson(MemoryPaths.run(dispatchId), record);
        await memory.append(MemoryPaths.runEvents(dispatchId), stored);
        lastIds.set(dispatchId, stored.event_id);
        for (const listener of listeners.get(dispatchId) ?? []) listener(stored);
        for (const listener of everyRun) listener(stored);
        // A finished run is not written again: its counters need not stay in memory.
        if (TERMINAL_RUN_STATES.has(record.state) && event === "run.finished") lastIds.delete(dispatchId);
      }),
    async get(dispatchId) {
      if (!isStorable(dispatchId)) return undefined;
      return memory.readJson(MemoryPaths.run(dispatchId), RunRecordSchema);
    },
    list: (filter) => listRuns(memory, filter),
    async eventsSince(dispatchId, lastEventId) {
      if (!isStorable(dispatchId)) return [];
      await chains.get(dispatchId);
      return (await memory.readJsonl(MemoryPaths.runEvents(dispatchId), StoredRunEventSchema)).filter((stored) => stored.event_id > lastEventId);
    },
    subscribe(dispatchId, listener) {
      const set = listeners.get(dispatchId) ?? new Set();
      set.add(listener);
      listeners.set(dispatchId, set);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(dispatchId);
      };
    },
    subscribeAll(listener) {
      everyRun.add(listener);
      return () => void everyRun.delete(listener);
    },
    async settle() {
      await Promise.all([...chains.values()]);
    },
    // Behind the run's own writes, so no write queued before the purge lands after it.
    purge: (dispatchId) =>
      queue(dispatchId, async () => {
        await memory.remove(MemoryPaths.runScreenshot(dispatchId));
        await memory.remove(MemoryPaths.runEvents(dispatchId));
        await memory.remove(MemoryPaths.run(dispatchId));
        lastIds.delete(dispatchId);
      }),
    strays: async () => straysAmong(await memory.list(MemoryPaths.runs)),
  };
}

async function listRuns(memory: MemoryStore, filter: { ability_id?: string | undefined }): Promise<RunRecord[]> {
  const names = (await memory.list(MemoryPaths.runs).catch(() => [])).filter((name) => name.endsWith(".json"));
  const runs = await Promise.all(names.map((name) => memory.readJson(`${MemoryPaths.runs}/${name}`, RunRecordSchema).catch(() => undefined)));
  return runs
    .filter((run): run is RunRecord => run !== undefined && (filter.ability_id === undefined || run.ability_id === filter.ability_id))
    .sort((a, b) => (a.started_at === b.started_at ? b.dispatch_id.localeCompare(a.dispatch_id) : b.started_at.localeCompare(a.started_at)));
}

/** Of the runs folder's file names, the dispatch ids with an events file or a screenshot but no record. */
function straysAmong(names: readonly string[]): string[] {
  const records = new Set(names.filter((name) => name.endsWith(RECORD_SUFFIX)).map((name) => name.slice(0, -RECORD_SUFFIX.length)));
  const strays = new Set<string>();
  for (const name of names) {
    const suffix = [EVENTS_SUFFIX, SCREENSHOT_SUFFIX].find((candidate) => name.endsWith(candidate));
    if (suffix === undefined) continue;
    const dispatchId = name.slice(0, -suffix.length);
    if (!records.has(dispatchId) && isStorable(dispatchId)) strays.add(dispatchId);
  }
  return [...strays].sort();
}

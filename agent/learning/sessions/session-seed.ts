import { randomUUID } from "node:crypto";
import type { LearnSession } from "../../../shared/learning/sessions/learn-session";
import { ObservedActionEventWithDetailSchema, type ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import { TraceSeedSummarySchema, type SourceTrace, type TraceSeedSummary } from "../../../shared/learning/sessions/trace-seed";
import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import type { RunRecord } from "../../../shared/execution/run-contract";
import type { RecorderFlow } from "../../../shared/execution/recorder-flow";
import { MemoryPaths } from "../../memory/memory-paths";
import type { SessionCore } from "./session-core";
import { fromReceipt, fromRun, fromSession, type SeedContext } from "./session-seed-read";
import type { AbilityRegistry } from "../../abilities/ability-registry";
import { StoredFlowSchema } from "../../../shared/execution/stored-skill-files";
import type { MemoryStore } from "../../memory/memory-store";
import { InstalledFiles } from "../../../shared/skills/skill-folder";

/** Where a run's trace is read from: the run record, and the flow of the skill it ran (set once the run service exists). */
export interface SeedSources {
  readRun(dispatchId: string): Promise<RunRecord | undefined>;
  /** The installed skill's recorded flow (`tests/flow.recorder.json`), or undefined. */
  installedFlow(abilityId: string): Promise<RecorderFlow | undefined>;
}

/** A seed read and checked, not yet written: events (with the new session's id still to set) and snapshots. */
export interface PreparedSeed {
  summary: TraceSeedSummary;
  events: ObservedActionEventWithDetail[];
  snapshots: Map<string, PageSnapshot>;
}

export interface TraceSeeder {
  setSources(sources: SeedSources): void;
  /** Reads and checks the trace; coded errors for one that is unknown or cannot seed; writes nothing. */
  prepare(source: SourceTrace): Promise<PreparedSeed>;
  /** Writes the seed as the new session's first observations, and its summary. */
  write(sessionId: string, seed: PreparedSeed): Promise<void>;
  /** `GET /api/learn/sessions/:id/seed`: what the session was seeded with, if anything. */
  summary(sessionId: string): Promise<TraceSeedSummary | undefined>;
}

const seedPath = (sessionId: string) => `${MemoryPaths.observationFolder(sessionId)}/seed.json`;
/**
 * Learn From This (§0B.6, issue #16): a new session starts from the trace of a run, an earlier
 * session or a receipt. The trace is copied in as the new session's first observations — its steps,
 * pages and snapshots (the evidence checkpoints are cut from) — so what the person then shows adds
 * to it and the proposal compiles both. Never a typed value: field edits stay masked.
 */
export function createTraceSeeder(core: SessionCore): TraceSeeder {
  const { deps } = core;
  const context: SeedContext = { core, sources: undefined };

  return {
    setSources(next) {
      context.sources = next;
    },

    prepare(source) {
      switch (source.kind) {
        case "run":
          return fromRun(context, source.dispatch_id);
        case "learn_session":
          return fromSession(context, source.learn_session_id);
        case "receipt":
          return fromReceipt(context, source.receipt_id);
        default: {
          const unreachable: never = source;
          throw new Error(`unknown source trace ${JSON.stringify(unreachable)}`);
        }
      }
    },

    async write(sessionId, seed) {
      for (const [sha, snapshot] of seed.snapshots) await deps.memory.writeJson(MemoryPaths.observationSnapshot(sessionId, sha), snapshot);
      // New ids: the new session's events are its own (an exclusion there never touches the source).
      const ids = new Map(seed.events.map((event) => [event.event_id, randomUUID()]));
      await deps.memory.appendMany(
        MemoryPaths.observationEvents(sessionId),
        seed.events.map((event) => ObservedActionEventWithDetailSchema.parse({ ...event, event_id: ids.get(event.event_id), learn_session_id: sessionId })),
      );
      await deps.memory.writeJson(seedPath(sessionId), seed.summary);
    },

    summary: (sessionId) => deps.memory.readJson(seedPath(sessionId), TraceSeedSummarySchema),
  };
}

/** The session's seeded trace starts its capture: Start goes on from armed to capturing at once (§0A.12). */
export async function isSeeded(seeder: TraceSeeder, session: LearnSession): Promise<boolean> {
  return session.entry_mode !== "autonomous_agent_practice" && (await seeder.summary(session.learn_session_id)) !== undefined;
}

/** The installed skill's recorded flow, as a run reads it, or undefined when it has none. */
export async function installedFlowOf(memory: MemoryStore, registry: Pick<AbilityRegistry, "get">, abilityId: string): Promise<RecorderFlow | undefined> {
  const ability = registry.get(abilityId);
  if (ability === undefined) return undefined;
  const text = await memory.readText(`${MemoryPaths.installedSkill(ability.skill_name)}/${InstalledFiles.flow}`);
  if (text === undefined) return undefined;
  try {
    const parsed = StoredFlowSchema.safeParse(JSON.parse(text));
    return parsed.success && parsed.data.step_ids.length === parsed.data.steps.length ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

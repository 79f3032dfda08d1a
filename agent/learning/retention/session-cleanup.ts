import { isTerminalLearnSessionState, type LearnSession } from "../../../shared/learning/sessions/learn-session";
import { ObservationRetentionRecordSchema } from "../../../shared/learning/sessions/session-requests";
import type { Clock } from "../../common/clock";
import { isAppError } from "../../errors/app-error";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import type { ProposalService } from "../proposals/proposal-service";
import type { SessionService } from "../sessions/session-service";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** §0C.16D time limits, each counted from when the session entered its current state. */
export const RETENTION_LIMITS = {
  armedMs: HOUR,
  capturingMs: 4 * HOUR,
  observationsAfterTerminalMs: 7 * DAY,
  proposalAfterTerminalMs: 14 * DAY,
  sessionAfterTerminalMs: 30 * DAY,
  /**
   * Issue #30: a run's record, events and screenshot, counted from when the run ended. R11.2 has
   * no run artifact in §0C.16D; runs are kept like raw observations, and what the spec retains
   * indefinitely (checkpoint, learning and capability-use receipts) lives in other logs and stays.
   */
  runsAfterEndMs: 7 * DAY,
} as const;

export type CleanupAction = "cancel" | "pause" | "purge_observations" | "archive_proposal" | "archive";

export interface CleanupFailure {
  learn_session_id: string;
  action: CleanupAction;
  code: string;
  message: string;
}

/** What one retention run did, by session id (§0C.16D). */
export interface CleanupReport {
  /** Armed for more than 1 h: cancelled with a `session_timeout` receipt. */
  cancelled: string[];
  /** Capturing for more than 4 h: paused with a `capture_timeout` receipt. */
  paused: string[];
  /** Terminal for more than 7 days: `observations/<id>/` deleted. */
  observations_purged: string[];
  /** Due for the purge but flagged `retain=true` (or the flag could not be read), so kept. */
  observations_retained: string[];
  /** Proposals of sessions terminal (cancelled/rejected) for more than 14 days: moved to `archived/proposals/`. */
  proposals_archived: string[];
  /** Terminal for more than 30 days: moved to `archived/sessions/`. */
  archived: string[];
  /** Actions that failed; the run went on with the other sessions. */
  failures: CleanupFailure[];
  /** Runs of abilities whose files were removed: ended more than 7 days ago, of an ability no longer installed, or left part-purged. */
  runs_purged: string[];
  /** Runs whose files could not be removed this time. */
  run_failures: Array<{ dispatch_id: string; code: string; message: string }>;
}

/** The part of the run service the sweep needs (agent/execution/runs/run-service.ts). */
export interface RunRetention {
  purge(
    due: (run: { ability_id: string; updated_at: string; completed_at?: string | undefined }) => boolean,
  ): Promise<{ purged: string[]; failures: CleanupReport["run_failures"] }>;
}

export interface SessionCleanup {
  runOnce(): Promise<CleanupReport>;
}

export interface SessionCleanupDeps {
  sessions: SessionService;
  memory: MemoryStore;
  clock: Clock;
  proposals?: ProposalService;
  /** Runs of installed abilities, swept in the same pass (issue #30). */
  runs?: RunRetention;
  /** Whether an ability is still installed; the runs of one that is not are purged at once. */
  isInstalled?: (abilityId: string) => boolean;
}

export function isCleanupReportEmpty(report: CleanupReport): boolean {
  return (
    report.cancelled.length +
      report.paused.length +
      report.observations_purged.length +
      report.archived.length +
      report.proposals_archived.length +
      report.failures.length +
      report.runs_purged.length +
      report.run_failures.length ===
    0
  );
}

/** A report with nothing done yet. */
function emptyReport(): CleanupReport {
  return {
    cancelled: [],
    paused: [],
    observations_purged: [],
    observations_retained: [],
    proposals_archived: [],
    archived: [],
    failures: [],
    runs_purged: [],
    run_failures: [],
  };
}

/** The session as it is now, or undefined when it was deleted or archived meanwhile. */
function currentSession(sessions: SessionService, sessionId: string): LearnSession | undefined {
  try {
    return sessions.get(sessionId);
  } catch (error) {
    if (isAppError(error) && error.code === "LEARN_SESSION_NOT_FOUND") return undefined;
    throw error;
  }
}

/** How long the session has been in its current state. */
function elapsedInState(deps: SessionCleanupDeps, sessionId: string): number {
  return deps.clock.now().getTime() - deps.sessions.stateSince(sessionId).getTime();
}

/** Whether the session is (still) in `state`, and has been for longer than `limitMs`. */
function isOverdue(deps: SessionCleanupDeps, sessionId: string, state: LearnSession["state"], limitMs: number): boolean {
  const session = currentSession(deps.sessions, sessionId);
  return session !== undefined && session.state === state && elapsedInState(deps, sessionId) > limitMs;
}

/** A flag that cannot be read throws, and the run then keeps the observations (see `attempt`). */
async function isRetained(memory: MemoryStore, sessionId: string): Promise<boolean> {
  const flag = await memory.readJson(MemoryPaths.observationRetention(sessionId), ObservationRetentionRecordSchema);
  return flag?.retain === true;
}

/** Runs one action on one session; a failure is reported and the sweep goes on. */
async function attempt(report: CleanupReport, sessionId: string, action: CleanupAction, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    report.failures.push({
      learn_session_id: sessionId,
      action,
      code: isAppError(error) ? error.code : "INTERNAL_ERROR",
      message: error instanceof Error ? error.message : String(error),
    });
    // Deleting what the user may have asked to keep cannot be undone: in doubt, keep.
    if (action === "purge_observations") report.observations_retained.push(sessionId);
  }
}

/** Live sessions past their time: armed ones cancelled, capturing ones paused. */
async function endOverdueLiveSessions(deps: SessionCleanupDeps, report: CleanupReport): Promise<void> {
  const { sessions } = deps;
  // Issue 32: only sessions that were armed or capturing when the pass began (their states are marks: no session is parsed to find them).
  for (const { learn_session_id: id, state } of sessions.states()) {
    if (state !== "armed" && state !== "capturing") continue;
    // Re-read right before acting: an earlier await may have let a user move this session on.
    // cancel/pause take the service's lock themselves, so they are called outside `exclusive`;
    // the guard makes them do nothing if the session left that state (or re-entered it) since.
    if (isOverdue(deps, id, "armed", RETENTION_LIMITS.armedMs)) {
      await attempt(report, id, "cancel", async () => {
        await sessions.cancel(id, "system_inferred", "session_timeout", { state: "armed", since: sessions.stateSince(id) });
        report.cancelled.push(id);
      });
    } else if (isOverdue(deps, id, "capturing", RETENTION_LIMITS.capturingMs)) {
      await attempt(report, id, "pause", async () => {
        await sessions.pause(id, "system_inferred", "capture_timeout", { state: "capturing", since: sessions.stateSince(id) });
        report.paused.push(id);
      });
    }
  }
}

/** A terminal session's observations, deleted after 7 days unless flagged to be kept. Run under the lock. */
async function purgeObservations(deps: SessionCleanupDeps, report: CleanupReport, id: string): Promise<void> {
  const session = currentSession(deps.sessions, id);
  if (session === undefined || !isTerminalLearnSessionState(session.state)) return;
  if (elapsedInState(deps, id) <= RETENTION_LIMITS.observationsAfterTerminalMs) return;
  if (!(await deps.memory.exists(MemoryPaths.observationFolder(id)))) return;
  if (await isRetained(deps.memory, id)) {
    report.observations_retained.push(id);
    return;
  }
  await deps.memory.remove(MemoryPaths.observationFolder(id));
  report.observations_purged.push(id);
}

/** §0C.16D: a proposal whose session ended (cancelled or rejected) is archived after 14 days. Run under the lock. */
async function archiveProposal(deps: SessionCleanupDeps, report: CleanupReport, id: string): Promise<void> {
  const session = currentSession(deps.sessions, id);
  if (session === undefined || !isTerminalLearnSessionState(session.state)) return;
  if (elapsedInState(deps, id) <= RETENTION_LIMITS.proposalAfterTerminalMs) return;
  const proposal = deps.proposals?.ofSession(id);
  if (proposal === undefined) return;
  await deps.proposals?.archive(proposal.proposal_id);
  report.proposals_archived.push(proposal.proposal_id);
}

/** A session terminal for 30 days, moved to `archived/sessions/`. Run under the lock. */
async function archiveSession(deps: SessionCleanupDeps, report: CleanupReport, id: string): Promise<void> {
  const session = currentSession(deps.sessions, id);
  if (session === undefined || !isTerminalLearnSessionState(session.state)) return;
  if (elapsedInState(deps, id) <= RETENTION_LIMITS.sessionAfterTerminalMs) return;
  await deps.sessions.archive(id);
  report.archived.push(id);
}

/** Terminal sessions: observations purged, proposals archived, then the session archived, each under the lock. */
async function retireTerminalSessions(deps: SessionCleanupDeps, report: CleanupReport): Promise<void> {
  const { sessions } = deps;
  // Issue 32: only sessions terminal when the pass began (one that ends meanwhile is seen by the next pass).
  for (const { learn_session_id: id, state } of sessions.states()) {
    if (!isTerminalLearnSessionState(state)) continue;
    // Under the lock, so a retain flag set (or a session deleted) meanwhile is seen before any purge.
    await attempt(report, id, "purge_observations", () => sessions.exclusive(() => purgeObservations(deps, report, id)));
    await attempt(report, id, "archive_proposal", () => sessions.exclusive(() => archiveProposal(deps, report, id)));
    // The purge above always gets its turn first (7 < 30 days): once archived, a session is no
    // longer listed, and observations it left behind would never be looked at again.
    if (report.failures.some((failure) => failure.learn_session_id === id)) continue;
    await attempt(report, id, "archive", () => sessions.exclusive(() => archiveSession(deps, report, id)));
  }
}

/** Runs ended more than 7 days ago, or of an ability no longer installed, purged (issue #30). */
async function purgeRuns(deps: SessionCleanupDeps, report: CleanupReport): Promise<void> {
  if (deps.runs === undefined) return;
  const cutoff = deps.clock.now().getTime() - RETENTION_LIMITS.runsAfterEndMs;
  const isInstalled = deps.isInstalled ?? (() => true);
  try {
    const runs = await deps.runs.purge((run) => !isInstalled(run.ability_id) || Date.parse(run.completed_at ?? run.updated_at) < cutoff);
    report.runs_purged.push(...runs.purged);
    report.run_failures.push(...runs.failures);
  } catch (error) {
    report.run_failures.push({
      dispatch_id: "*",
      code: isAppError(error) ? error.code : "INTERNAL_ERROR",
      message: error instanceof Error ? error.message : String(error),
    });
  }
}

/**
 * §0C.16D TTL enforcement. Two TTL transitions for live sessions (armed → cancelled, capturing →
 * paused), and for terminal (`rejected`/`cancelled`) sessions only: the observation purge and the
 * archive. Nothing else of a non-terminal session is touched ("never delete data that is still
 * referenced by a non-terminal session"). One failing session never stops the run.
 */
export function createSessionCleanup(deps: SessionCleanupDeps): SessionCleanup {
  return {
    async runOnce() {
      const report = emptyReport();
      await endOverdueLiveSessions(deps, report);
      await retireTerminalSessions(deps, report);
      await purgeRuns(deps, report);
      return report;
    },
  };
}

import { runNoticeOf, type RunNotice } from "../../../shared/execution/run-notice";
import { TERMINAL_RUN_STATES, type RunRecord } from "../../../shared/execution/run-contract";
import type { RunStore } from "./run-store";

/**
 * Issue #33: the run-notice feed. It follows every run's saved events and tells its listeners (the
 * extension's socket) when a run starts waiting for the person, stops waiting, or ends, and it
 * knows which runs wait now, for a socket that has just said hello. Runs only wait inside this
 * process (a run not over when the agent stopped is marked interrupted at start), so what waits
 * is kept in memory. Notices are cut from run records, which never hold an input value.
 */
export interface RunNotices {
  /** The runs waiting for the person's answer now, oldest question first. */
  waiting(): RunNotice[];
  /** Every notice from now on, in the order of the runs' events; the returned function unsubscribes. */
  subscribe(listener: (notice: RunNotice) => void): () => void;
}

export interface RunNoticesDeps {
  store: Pick<RunStore, "subscribeAll">;
  /** The ability's sites (its run-spec's), looked up once per run; [] when they cannot be read. */
  sitesOf(abilityId: string): Promise<string[]>;
  logError?: (fields: Record<string, unknown>, message: string) => void;
}

/** Whether a saved change of a run is worth telling: waiting, no longer waiting, or over. */
function isNoticeable(run: RunRecord, wasWaiting: boolean): boolean {
  return run.state === "needs_confirmation" || TERMINAL_RUN_STATES.has(run.state) || wasWaiting;
}

export function createRunNotices(deps: RunNoticesDeps): RunNotices {
  const waiting = new Map<string, RunNotice>();
  /** Runs waiting as of the last event seen (kept in step with events; `waiting` follows once their notices are made). */
  const waitingIds = new Set<string>();
  const sites = new Map<string, Promise<string[]>>();
  const listeners = new Set<(notice: RunNotice) => void>();
  // Notices leave in the order of the events they come from, though a run's sites are read asynchronously.
  let chain: Promise<void> = Promise.resolve();

  const sitesFor = (run: RunRecord): Promise<string[]> => {
    let known = sites.get(run.dispatch_id);
    if (known === undefined) {
      known = deps.sitesOf(run.ability_id).catch(() => []);
      sites.set(run.dispatch_id, known);
    }
    return known;
  };

  const tell = async (run: RunRecord): Promise<void> => {
    const notice = runNoticeOf(run, await sitesFor(run));
    if (notice.state === "needs_confirmation") waiting.set(notice.dispatch_id, notice);
    else waiting.delete(notice.dispatch_id);
    if (TERMINAL_RUN_STATES.has(notice.state)) sites.delete(notice.dispatch_id);
    for (const listener of listeners) listener(notice);
  };

  // Followed for the agent's lifetime: the feed lives and dies with the runs service's store.
  deps.store.subscribeAll(({ run }) => {
    const wasWaiting = waitingIds.has(run.dispatch_id);
    if (run.state === "needs_confirmation") waitingIds.add(run.dispatch_id);
    else waitingIds.delete(run.dispatch_id);
    if (!isNoticeable(run, wasWaiting)) return;
    chain = chain
      .then(() => tell(run))
      .catch((error: unknown) => deps.logError?.({ dispatch_id: run.dispatch_id, err: error }, "a run notice could not be made"));
  });

  return {
    waiting: () =>
      [...waiting.values()].sort((a, b) => (a.pending_confirmation?.asked_at ?? "").localeCompare(b.pending_confirmation?.asked_at ?? "")).slice(0, 50),
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

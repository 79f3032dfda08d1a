import type { WorkflowBoundary } from "../../../shared/learning/sessions/boundary";
import type { LearnSession } from "../../../shared/learning/sessions/learn-session";
import type { ObservationScopeRuntime } from "../../../shared/learning/sessions/observation-scope-runtime";
import type { LearnStreamEventKind } from "../../../shared/learning/sessions/lifecycle-event";
import { LearningReceiptSchema, type LearningReceipt, type LearningReceiptKind } from "../../../shared/learning/sessions/receipts";
import { MemoryPaths } from "../../memory/memory-paths";
import type { SessionCore } from "./session-core";
import type { BoundarySource } from "./session-service";
import { runtimeSnapshotOf } from "./session-views";

/** The session runtime's writes other than the session itself: boundaries, receipts, runtime views, announcements. */

/**
 * A session's last ten receipt ids (the runtime view lists them), read from the receipts log the
 * first time that session needs them, not at start: the log holds every receipt ever written, so
 * it is read from its end, only as far back as those ten (issue 17).
 */
export function recentReceiptIds(core: SessionCore, sessionId: string): Promise<string[]> {
  const { deps, receiptIds } = core;
  let list = receiptIds.get(sessionId);
  if (list === undefined) {
    list = deps.memory
      .readJsonlLast(MemoryPaths.receipts, LearningReceiptSchema, sessionId, 10, (receipt) => receipt.learn_session_id === sessionId)
      .then((receipts) => receipts.map((receipt) => receipt.receipt_id));
    receiptIds.set(sessionId, list);
    list.catch(() => receiptIds.delete(sessionId));
  }
  return list;
}

export async function writeBoundary(
  core: SessionCore,
  session: LearnSession,
  kind: WorkflowBoundary["kind"],
  source: BoundarySource,
  extra: { label?: string | undefined; source_event_id?: string | undefined } = {},
): Promise<WorkflowBoundary> {
  const boundary: WorkflowBoundary = {
    boundary_id: core.newId(),
    learn_session_id: session.learn_session_id,
    kind,
    source,
    ...(extra.label === undefined ? {} : { label: extra.label }),
    ...(extra.source_event_id === undefined ? {} : { source_event_id: extra.source_event_id }),
    created_at: core.now().toISOString(),
    schema_version: 1,
  };
  await core.deps.memory.append(MemoryPaths.boundaries, boundary);
  return boundary;
}

export async function writeReceipt(
  core: SessionCore,
  session: LearnSession,
  kind: LearningReceiptKind,
  extra: { reason?: string | undefined; details?: Record<string, unknown> | undefined } = {},
): Promise<LearningReceipt> {
  const receipt: LearningReceipt = {
    receipt_id: core.newId(),
    receipt_kind: kind,
    learn_session_id: session.learn_session_id,
    ...(session.proposal_id === undefined ? {} : { proposal_id: session.proposal_id }),
    ...(extra.reason === undefined ? {} : { reason: extra.reason }),
    ...(extra.details === undefined ? {} : { details: extra.details }),
    created_at: core.now().toISOString(),
    schema_version: 1,
  };
  // Known before the append, so the list read from the log never misses or repeats this receipt.
  const list = await recentReceiptIds(core, session.learn_session_id);
  await core.deps.memory.append(MemoryPaths.receipts, receipt);
  list.push(receipt.receipt_id);
  list.splice(0, Math.max(0, list.length - 10));
  return receipt;
}

/** Rewrites the current-session views, then tells the listeners (even when the write failed). */
export async function refreshRuntimeViews(core: SessionCore): Promise<void> {
  const { currentListeners } = core;
  const current = core.currentSession();
  const scope = current === undefined ? undefined : await core.scopeOf(current.learn_session_id);
  const notify = () => {
    for (const listener of currentListeners) listener(current, scope);
  };
  try {
    await writeRuntimeViews(core, current, scope);
  } finally {
    notify();
  }
}

async function writeRuntimeViews(core: SessionCore, current: LearnSession | undefined, scope: ObservationScopeRuntime | undefined): Promise<void> {
  const { deps } = core;
  if (current === undefined) {
    await deps.memory.remove(MemoryPaths.runtimeCurrent);
    await deps.memory.remove(MemoryPaths.observationScopeCurrent);
    return;
  }
  await deps.memory.writeJson(
    MemoryPaths.runtimeCurrent,
    runtimeSnapshotOf(current, scope, [...(await recentReceiptIds(core, current.learn_session_id))], core.now()),
  );
  if (scope === undefined) await deps.memory.remove(MemoryPaths.observationScopeCurrent);
  else await deps.memory.writeJson(MemoryPaths.observationScopeCurrent, scope);
}

/** Receipt, then views, then the live event: a subscriber never hears of a change the files lack. */
export async function announce(
  core: SessionCore,
  session: LearnSession,
  receiptKind: LearningReceiptKind,
  streamEvent: LearnStreamEventKind | undefined,
  extra: { reason?: string | undefined; payload?: Record<string, unknown> } = {},
): Promise<void> {
  await writeReceipt(core, session, receiptKind, { reason: extra.reason });
  await refreshRuntimeViews(core);
  if (streamEvent !== undefined) {
    await core.deps.events.emit(session.learn_session_id, streamEvent, {
      state: session.state,
      ...(extra.reason === undefined ? {} : { reason: extra.reason }),
      ...extra.payload,
    });
  }
}

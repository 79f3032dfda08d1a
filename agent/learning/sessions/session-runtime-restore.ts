import { isDeepStrictEqual } from "node:util";
import { isLearnSessionInProgress, type LearnSession } from "../../../shared/learning/sessions/learn-session";
import { ObservationScopeRuntimeSchema, type ObservationScopeRuntime } from "../../../shared/learning/sessions/observation-scope-runtime";
import { LearningReceiptSchema } from "../../../shared/learning/sessions/receipts";
import { LearningRuntimeSnapshotSchema, type LearningRuntimeSnapshot } from "../../../shared/learning/sessions/runtime-snapshot";
import { MemoryPaths } from "../../memory/memory-paths";
import type { SessionCore } from "./session-core";
import { runtimeSnapshotOf } from "./session-views";

/**
 * Start-up's runtime (issue 32): the views kept on every session change (`runtime/current.json`,
 * `observation_scope_current.json`) are read instead of being rebuilt from the current session's
 * scope file and the receipts log (which holds every receipt ever written). A view that is missing
 * or does not describe the current session as the sessions log has it (a memory written before
 * these views, or a stop between a write and its views) is rebuilt once from the files, as every
 * start did before.
 *
 * Checked: the snapshot is what the current session and the scope view give (state, refs, data
 * classes); the receipts log's last line (its tail only) is listed if it is this session's; a session
 * still in progress has its own scope file read (one file: ingest and the capture clients rely on
 * its every field) and compared with the view.
 */
export async function restoreRuntimeViews(core: SessionCore): Promise<void> {
  const { memory } = core.deps;
  const current = core.currentSession();
  const [runtime, scope] = await Promise.all([
    memory.readJson(MemoryPaths.runtimeCurrent, LearningRuntimeSnapshotSchema).catch(() => undefined),
    memory.readJson(MemoryPaths.observationScopeCurrent, ObservationScopeRuntimeSchema).catch(() => undefined),
  ]);
  if (current === undefined) {
    if (runtime !== undefined || scope !== undefined) await core.refreshRuntimeViews();
    return;
  }
  if (runtime === undefined || !(await describes(core, current, runtime, scope))) {
    await core.refreshRuntimeViews();
    return;
  }
  if (!core.scopes.has(current.learn_session_id)) core.scopes.set(current.learn_session_id, scope);
  if (!core.receiptIds.has(current.learn_session_id)) core.receiptIds.set(current.learn_session_id, Promise.resolve(runtime.latest_receipt_ids));
}

async function describes(
  core: SessionCore,
  current: LearnSession,
  runtime: LearningRuntimeSnapshot,
  scope: ObservationScopeRuntime | undefined,
): Promise<boolean> {
  if (scope !== undefined && scope.learn_session_id !== current.learn_session_id) return false;
  const expected = runtimeSnapshotOf(current, scope, runtime.latest_receipt_ids, new Date(runtime.snapshot_as_of));
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(expected)), runtime)) return false;
  const [last] = await core.deps.memory.readJsonlLast(MemoryPaths.receipts, LearningReceiptSchema, "", 1).catch(() => [undefined]);
  if (last !== undefined && last.learn_session_id === current.learn_session_id && !runtime.latest_receipt_ids.includes(last.receipt_id)) return false;
  if (!isLearnSessionInProgress(current.state)) return true;
  return isDeepStrictEqual(await core.scopeOf(current.learn_session_id), scope);
}

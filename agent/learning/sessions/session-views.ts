import type { LearnSession } from "../../../shared/learning/sessions/learn-session";
import type { ObservationScopeRuntime } from "../../../shared/learning/sessions/observation-scope-runtime";
import type { LearningRuntimeSnapshot } from "../../../shared/learning/sessions/runtime-snapshot";
import { isLearnSessionInProgress } from "../../../shared/learning/sessions/learn-session";
import type { SessionStateMarks } from "./session-load";

/**
 * The session the runtime views describe: the one in progress (§0C.1B allows one), or
 * else the one changed last, so "what just happened" stays answerable after a cancel.
 * Decided on the sessions' state marks (issue 32: no session is parsed for it).
 */
export function currentSessionId(states: ReadonlyMap<string, SessionStateMarks>): string | undefined {
  let latest: { id: string; updatedAt: string } | undefined;
  for (const [id, { state, updatedAt }] of states) {
    if (isLearnSessionInProgress(state)) return id;
    if (latest === undefined || updatedAt > latest.updatedAt) latest = { id, updatedAt };
  }
  return latest?.id;
}

/** §0C.7 — derived from the session and its scope; rewritten on every change, never edited. */
export function runtimeSnapshotOf(
  session: LearnSession,
  scope: ObservationScopeRuntime | undefined,
  latestReceiptIds: string[],
  asOf: Date,
): LearningRuntimeSnapshot {
  return {
    learn_session_id: session.learn_session_id,
    entry_mode: session.entry_mode,
    observation_mode: session.observation_mode,
    build_policy: session.build_policy,
    state: session.state,
    observed_data_classes: scope?.data_classes_observed ?? [],
    ...((session.stop_boundary_ref ?? session.start_boundary_ref) ? { active_boundary_ref: session.stop_boundary_ref ?? session.start_boundary_ref } : {}),
    ...(session.interpretation_id === undefined ? {} : { interpretation_id: session.interpretation_id }),
    ...(session.proposal_id === undefined ? {} : { proposal_id: session.proposal_id }),
    ...(session.validation_run_id === undefined ? {} : { validation_run_id: session.validation_run_id }),
    ...(session.ability_id === undefined ? {} : { ability_id: session.ability_id }),
    latest_receipt_ids: latestReceiptIds.slice(-10),
    snapshot_as_of: asOf.toISOString(),
    schema_version: 1,
  };
}

import path from "node:path";
import { AGENT_TOKEN_PATH } from "../../shared/common/agent-address";
import { AppError } from "../errors/app-error";

/**
 * A path inside ELNOR_MEMORY is written as "/"-separated segments relative to the root. Each
 * segment is a plain name: ids, slugs, file names. Anything that could climb out of the root or
 * mean something to a shell or another OS (`..`, absolute paths, backslashes, NUL, hidden or
 * empty segments) is refused before the file system sees it.
 */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

export function assertMemorySegment(segment: string): string {
  if (!SEGMENT.test(segment) || segment.includes("..")) {
    throw new AppError("MEMORY_PATH_INVALID", "A memory path segment must be a plain name (letters, digits, . _ -).");
  }
  return segment;
}

export function resolveMemoryPath(root: string, relative: string): string {
  if (relative.length === 0 || relative.length > 1024) {
    throw new AppError("MEMORY_PATH_INVALID", "A memory path must be 1–1024 characters.");
  }
  const segments = relative.split("/");
  for (const segment of segments) assertMemorySegment(segment);
  const resolved = path.resolve(root, ...segments);
  // Defence in depth: the segment rule already forbids escaping, this catches any future change.
  if (resolved !== root && !resolved.startsWith(root + path.sep)) {
    throw new AppError("MEMORY_PATH_INVALID", "A memory path must stay inside ELNOR_MEMORY.");
  }
  return resolved;
}

/** DESIGN §5 — every path the agent writes, named once. */
export const MemoryPaths = {
  agentToken: AGENT_TOKEN_PATH,
  agentLock: "system/agent/lock",
  agentPairing: "system/agent/pairing.json",
  runtimeCurrent: "system/learning/runtime/current.json",
  observationScopeCurrent: "system/learning/runtime/observation_scope_current.json",
  sessions: "system/learning/sessions.jsonl",
  proposals: "system/learning/proposals.jsonl",
  /** Issue 32: each live session's and proposal's last version, folded from the logs above up to a byte (agent/memory/log-view.ts; no spec name). */
  sessionsCurrent: "system/learning/sessions_current.json",
  proposalsCurrent: "system/learning/proposals_current.json",
  questions: "system/learning/questions.jsonl",
  answers: "system/learning/answers.jsonl",
  boundaries: "system/learning/boundaries.jsonl",
  receipts: "system/learning/receipts.jsonl",
  checkpointReceipts: "system/learning/checkpoint_receipts.jsonl",
  /** Issue 32: each ability's last ten checkpoint results, folded from the log above up to a byte (no spec name). */
  checkpointHealthCurrent: "system/abilities/checkpoint_health_current.json",
  validationRuns: "system/learning/validation_runs.jsonl",
  validationStepResults: "system/learning/validation_step_results.jsonl",
  bridgeEntriesCurrent: "system/capabilities/bridge_entries_current.json",
  availabilityCurrent: "system/abilities/availability_current.json",
  catalogCurrent: "system/abilities/catalog_current.json",
  activationHistory: "system/abilities/activation_history.jsonl",
  abilityRegistry: "system/abilities/registry.jsonl",
  /** Issue 32: each installed ability's last line of the registry, folded up to a byte (agent/memory/log-view.ts). */
  abilityRegistryCurrent: "system/abilities/registry_current.json",
  sentenceVectors: "system/abilities/sentence_vectors.jsonl",
  sessionEvents: "system/learning/session_events.jsonl",
  testPolicies: "system/learning/test_policies.jsonl",
  archivedSessions: "system/learning/archived/sessions",
  archivedProposal: (proposalId: string) => `system/learning/archived/proposals/${assertMemorySegment(proposalId)}`,
  observationsRoot: "system/learning/observations",
  observationScope: (sessionId: string) => `system/learning/observation_scopes/${assertMemorySegment(sessionId)}.json`,
  observationFolder: (sessionId: string) => `system/learning/observations/${assertMemorySegment(sessionId)}`,
  observationExclusions: (sessionId: string) => `system/learning/observations/${assertMemorySegment(sessionId)}/exclusions.json`,
  /** §0C.16D `retain=true`: the user's flag that keeps a session's raw observations past the 7-day purge. */
  observationRetention: (sessionId: string) => `system/learning/observation_retention/${assertMemorySegment(sessionId)}.json`,
  archivedSession: (sessionId: string) => `system/learning/archived/sessions/${assertMemorySegment(sessionId)}.json`,
  interpretation: (interpretationId: string) => `system/learning/interpretations/${assertMemorySegment(interpretationId)}.json`,
  observationEvents: (sessionId: string) => `system/learning/observations/${assertMemorySegment(sessionId)}/events.jsonl`,
  observationSnapshot: (sessionId: string, sha256: string) =>
    `system/learning/observations/${assertMemorySegment(sessionId)}/snapshots/${assertMemorySegment(sha256)}.json`,
  draft: (proposalId: string) => `system/learning/drafts/${assertMemorySegment(proposalId)}`,
  draftRevision: (proposalId: string, revision: number) =>
    `system/learning/drafts/${assertMemorySegment(proposalId)}/rev-${String(Math.trunc(revision)).padStart(3, "0")}`,
  installedSkill: (skillName: string) => `system/learning/installed/${assertMemorySegment(skillName)}`,
  /** An install saga in progress: what it may have to put back if the agent stops mid-way. */
  installSagas: "system/learning/install-sagas",
  installSaga: (sagaId: string) => `system/learning/install-sagas/${assertMemorySegment(sagaId)}.json`,
  /** §0.8 one capability-use receipt per dispatch (a run of an ability, issue #21). */
  capabilityUseReceipts: "system/capabilities/use_receipts.jsonl",
  /** Issue #21: runs of installed abilities, one record per dispatch, its events and its screenshot beside it. */
  runs: "system/execution/runs",
  run: (dispatchId: string) => `system/execution/runs/${assertMemorySegment(dispatchId)}.json`,
  runEvents: (dispatchId: string) => `system/execution/runs/${assertMemorySegment(dispatchId)}.events.jsonl`,
  runScreenshot: (dispatchId: string) => `system/execution/runs/${assertMemorySegment(dispatchId)}.png`,
  /** Issue #33: the person's schedules as they are now (replaced atomically), and what happened to them (no input values). */
  schedulesCurrent: "system/execution/schedules/current.json",
  scheduleLog: "system/execution/schedules/log.jsonl",
  /** Issue #33: standing approvals bound to terms, beside the runs: the current view and the append-only log of each creation, use and revocation. */
  grantsCurrent: "system/execution/grants/grants_current.json",
  grantsLog: "system/execution/grants/grants.jsonl",
  /** Issue #33: the per-install key (mode 0600) under which a grant keeps its exact inputs as keyed hashes. */
  grantKey: "system/agent/grant_key",
  capabilityManifest: (capabilityId: string) => `system/capabilities/manifests/${assertMemorySegment(capabilityId)}.json`,
  capabilityMetadata: (capabilityId: string) => `system/capabilities/metadata/${assertMemorySegment(capabilityId)}.json`,
} as const;

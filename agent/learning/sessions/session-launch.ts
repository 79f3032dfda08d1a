import type { CreateLearnSessionRequest, CreateLearnSessionResponse } from "../../../shared/learning/sessions/create-learn-session";
import {
  isLearnSessionInProgress,
  isTerminalLearnSessionState,
  type LearnSession,
  type LearningEntryMode,
} from "../../../shared/learning/sessions/learn-session";
import { AppError } from "../../errors/app-error";
import { MemoryPaths } from "../../memory/memory-paths";
import type { ObservationScopeRuntime } from "../../../shared/learning/sessions/observation-scope-runtime";
import type { TestPolicy } from "../../../shared/learning/sessions/test-policy";
import type { SessionCore } from "./session-core";
import type { SessionStateMarks } from "./session-load";
import type { PreparedSeed, TraceSeeder } from "./session-seed";
import type { SessionService } from "./session-service";

/** §0C.2 / §0C.3: the panel layout and first step that fit each entry mode. */
const ENTRY_MODE_UI: Record<LearningEntryMode, Pick<CreateLearnSessionResponse, "ui_mode" | "next_action">> = {
  demonstrating_skill: { ui_mode: "overlay", next_action: "wait_for_first_meaningful_event" },
  coaching_agent: { ui_mode: "drawer", next_action: "wait_for_first_meaningful_event" },
  autonomous_agent_practice: { ui_mode: "exploratory", next_action: "launch_exploration" },
  improving_existing_skill: { ui_mode: "drawer", next_action: "show_skill_delta_editor" },
  import_skill: { ui_mode: "import", next_action: "show_import_configurator" },
};

/**
 * What starts the agent's own work in a session of one mode (Autonomous Agent Practice: its
 * driver). `check` runs before anything is written and throws a coded error for a request it cannot
 * serve; `launch` is called once the session exists and must not wait for the work it starts.
 */
export interface ModeLauncher {
  check(request: CreateLearnSessionRequest): Promise<void>;
  launch(session: LearnSession, request: CreateLearnSessionRequest): void;
}

/** §0C.3: one session in progress at a time (told by the sessions' state marks: no session is parsed for it). */
function assertNoActiveSession(states: ReadonlyMap<string, SessionStateMarks>): void {
  const active = [...states].find(([, { state }]) => isLearnSessionInProgress(state));
  if (active !== undefined) {
    throw new AppError("LEARN_SESSION_ALREADY_ACTIVE", "Another learning session is still open; cancel or finish it first.", {
      activeSessionId: active[0],
    });
  }
}

/** The request's mode-bound fields (target_skill_id, practice, source_trace) fit its entry mode. */
function assertFieldsFitMode(request: CreateLearnSessionRequest): void {
  if (request.entry_mode === "improving_existing_skill" && request.target_skill_id === undefined) {
    throw new AppError("REQUEST_INVALID", "Improving an existing skill needs target_skill_id: the skill to improve.", {
      issues: [{ path: "body/target_skill_id", message: "required for improving_existing_skill" }],
    });
  }
  if ((request.entry_mode === "autonomous_agent_practice") !== (request.practice !== undefined)) {
    throw new AppError(
      "REQUEST_INVALID",
      request.practice === undefined
        ? "Autonomous Agent Practice needs practice: what to practise (an installed skill's ability_id or a draft proposal_id), and how."
        : "practice is only for entry_mode autonomous_agent_practice.",
      {
        issues: [
          {
            path: "body/practice",
            message: request.practice === undefined ? "required for autonomous_agent_practice" : "only for autonomous_agent_practice",
          },
        ],
      },
    );
  }
  if (request.source_trace !== undefined && (request.entry_mode === "autonomous_agent_practice" || request.entry_mode === "import_skill")) {
    throw new AppError(
      "REQUEST_INVALID",
      "source_trace seeds a session that learns from a trace: Demonstrating Skill, Coaching Agent or Improving Existing Skill.",
      {
        issues: [{ path: "body/source_trace", message: `not for ${request.entry_mode}` }],
      },
    );
  }
}

/** The new session the request describes, idle, created at `at`. */
function newSession(request: CreateLearnSessionRequest, learnSessionId: string, at: string): LearnSession {
  const practised = request.practice !== undefined && "ability_id" in request.practice.practise ? request.practice.practise.ability_id : undefined;
  return {
    learn_session_id: learnSessionId,
    entry_mode: request.entry_mode,
    // Practice observes the agent's own actions (§0C.3): nothing outside the agent is watched.
    observation_mode: request.entry_mode === "autonomous_agent_practice" && request.observation_mode === "none" ? "inside_agent" : request.observation_mode,
    build_policy: request.build_policy,
    execution_mode: request.execution_mode,
    // Practising an installed skill proposes a repair of it: the session improves that skill.
    target_kind: practised === undefined ? request.target_kind : "existing_skill",
    state: "idle",
    actor_mode: "mixed",
    ...(request.project_id === undefined ? {} : { project_id: request.project_id }),
    ...(request.room_id === undefined ? {} : { room_id: request.room_id }),
    ...(request.target_skill_id === undefined && practised === undefined ? {} : { target_skill_id: request.target_skill_id ?? practised }),
    ...(request.target_app_family === undefined ? {} : { target_app_family: request.target_app_family }),
    target_app_whitelist: [...new Set(request.target_app_whitelist.map((entry) => entry.trim().toLowerCase()))],
    active_trace_ids: [],
    active_observation_batch_ids: [],
    created_at: at,
    updated_at: at,
    schema_version: 1,
  };
}

/** A new session's observation scope: nothing observed yet, typed text masked. */
function newScope(session: LearnSession, at: string): ObservationScopeRuntime {
  return {
    learn_session_id: session.learn_session_id,
    adapters_active: [],
    data_classes_observed: [],
    redaction_modes: { text_entry: "mask_text" },
    scope: session.observation_mode,
    target_app_whitelist: session.target_app_whitelist,
    off_target_events_dropped: 0,
    started_at: at,
    schema_version: 1,
  };
}

/** Writes the new session, its scope and its seed, then announces it. */
async function writeNewSession(core: SessionCore, seeder: TraceSeeder, session: LearnSession, seed: PreparedSeed | undefined, at: string): Promise<void> {
  // A session made just now has no receipts in the log: nothing to look for there.
  core.receiptIds.set(session.learn_session_id, Promise.resolve([]));
  await core.put(session);
  await core.putScope(newScope(session, at));
  if (seed !== undefined) await seeder.write(session.learn_session_id, seed);
  await core.announce(session, "learn.session.started", "learn.session.started", {
    payload: {
      entry_mode: session.entry_mode,
      ...(seed === undefined ? {} : { seeded_from: seed.summary.source.kind, seeded_steps: seed.summary.steps.length }),
    },
  });
}

/** `create`, inside the queue: refuses what cannot be served before anything is written, then writes and launches. */
async function createSession(
  core: SessionCore,
  seeder: TraceSeeder,
  launchers: ReadonlyMap<LearningEntryMode, ModeLauncher>,
  request: CreateLearnSessionRequest,
): Promise<CreateLearnSessionResponse> {
  assertNoActiveSession(core.states);
  assertFieldsFitMode(request);
  const launcher = launchers.get(request.entry_mode);
  // Before anything is written: a request the mode cannot serve, or a trace that is unknown, leaves no session behind.
  await launcher?.check(request);
  const seed = request.source_trace === undefined ? undefined : await seeder.prepare(request.source_trace);
  const at = core.now().toISOString();
  const session = newSession(request, core.newId(), at);
  await writeNewSession(core, seeder, session, seed, at);
  launcher?.launch(session, request);
  return { session, ...ENTRY_MODE_UI[session.entry_mode], ...(seed === undefined ? {} : { seed: seed.summary }) };
}

/** §0C.14: a session's test policy, logged and referenced from the session; none for a terminal one. */
async function setTestPolicy(core: SessionCore, sessionId: string, policy: TestPolicy): Promise<LearnSession> {
  const session = core.find(sessionId);
  if (isTerminalLearnSessionState(session.state)) {
    throw new AppError("INVALID_LEARN_STATE_TRANSITION", `A ${session.state} session takes no test policy.`);
  }
  await core.deps.memory.append(MemoryPaths.testPolicies, {
    learn_session_id: sessionId,
    test_policy: policy,
    created_at: core.now().toISOString(),
  });
  const next = core.withChanges(session, { test_policy_ref: `test_policy:${policy.policy_id}` });
  await core.put(next);
  await core.refreshRuntimeViews();
  return next;
}

/** Opening a session in one of the five learning modes (§0B.5, §0C.3), and the test policy it runs under (§0C.14). */
export function createLaunchOperations(core: SessionCore, seeder: TraceSeeder): Pick<SessionService, "create" | "setTestPolicy" | "setModeLauncher"> {
  const launchers = new Map<LearningEntryMode, ModeLauncher>();
  return {
    setModeLauncher(mode, launcher) {
      launchers.set(mode, launcher);
    },
    create: (request) => core.exclusive(() => createSession(core, seeder, launchers, request)),
    setTestPolicy: (sessionId, policy) => core.exclusive(() => setTestPolicy(core, sessionId, policy)),
  };
}

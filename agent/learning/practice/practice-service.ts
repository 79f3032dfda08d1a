import { randomUUID } from "node:crypto";
import type { CreateLearnSessionRequest } from "../../../shared/learning/create-learn-session";
import { isTerminalLearnSessionState, type LearnSession } from "../../../shared/learning/learn-session";
import { PracticeReportSchema, type PracticeReport, type PracticeSetup } from "../../../shared/learning/practice";
import { TestPolicySchema, type TestPolicy } from "../../../shared/learning/test-policy";
import type { Clock } from "../../common/clock";
import { AppError } from "../../errors/app-error";
import type { ExecuteInput, ExecuteResult, ExecutionProgress } from "../../execution/executor-contract";
import { MemoryPaths } from "../../memory/memory-paths";
import type { LearnEventLog } from "../sessions/learn-event-log";
import type { ProposalService } from "../proposals/proposal-service";
import type { ModeLauncher } from "../sessions/session-launch";
import type { SessionService } from "../sessions/session-service";
import { readPracticeBase, type PracticeBaseDeps } from "./practice-base";
import { practise } from "./practice-driver";
import { writePracticeProposal } from "./practice-proposal";

export interface PracticeServiceDeps extends PracticeBaseDeps {
  sessions: SessionService;
  proposals: PracticeBaseDeps["proposals"] & Pick<ProposalService, "adopt">;
  events: LearnEventLog;
  clock: Clock;
  /** The one executor, with the managed browser. */
  execute: (input: ExecuteInput) => Promise<ExecuteResult>;
  logError?: (fields: Record<string, unknown>, message: string) => void;
}

export interface PracticeService {
  /** Starts a practice when an `autonomous_agent_practice` session is created. */
  launcher: ModeLauncher;
  /** `GET /api/learn/sessions/:id/practice`: where the practice is and what it found. */
  report(sessionId: string): Promise<PracticeReport>;
  /** Resolves when every practice under way has ended (tests; a graceful close). */
  settled(): Promise<void>;
}

/** The report of a practice, beside the session's other learning files. */
const reportPath = (sessionId: string) => `${MemoryPaths.observationFolder(sessionId)}/practice-report.json`;

/** Where unknown test-input names are caught: before the session exists. */
function checkInputNames(setup: PracticeSetup, names: readonly string[]): void {
  const unknown = [...new Set(setup.input_sets.flatMap((set) => Object.keys(set)))].filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    throw new AppError("REQUEST_INVALID", `Some test inputs are not inputs of this skill (its inputs: ${names.join(", ") || "none"}).`, {
      issues: unknown.slice(0, 20).map((name) => ({ path: "body/practice/input_sets", message: `unknown input ${name}`.slice(0, 240) })),
    });
  }
}

/** The request's policy, or the safe default: a dry run on the allowed sites only (§0C.14). */
function policyOf(request: CreateLearnSessionRequest): TestPolicy {
  return (
    request.test_policy ??
    TestPolicySchema.parse({
      policy_id: randomUUID(),
      mode: "dry_run_only",
      allowed_domains: request.target_app_whitelist.map((site) => site.replace(/^https?:\/\//i, "").replace(/\/$/, "")),
      schema_version: 1,
    })
  );
}

/**
 * Autonomous Agent Practice (issue #16): runs the practice driver for a new practice session and
 * keeps the session's runtime as for a demonstration — armed, capturing the agent's own actions as
 * its observations (`inside_agent`, labels only, never input values), stopped — then proposes the
 * repairs it confirmed for review, or says there was nothing to repair, or stops at the test policy
 * (`TEST_POLICY_VIOLATION`). The sets of test inputs live only in this closure while the practice runs.
 */
export function createPracticeService(deps: PracticeServiceDeps): PracticeService {
  const now = () => deps.clock.now().toISOString();
  const running = new Set<Promise<void>>();

  const save = async (report: PracticeReport) =>
    deps.memory.writeJson(reportPath(report.learn_session_id), PracticeReportSchema.parse({ ...report, updated_at: now() }));

  const run = async (session: LearnSession, setup: PracticeSetup, policy: TestPolicy) => {
    const sessionId = session.learn_session_id;
    const words = {
      ...(setup.goal_summary === undefined ? {} : { goal_summary: setup.goal_summary }),
      ...(setup.success_description === undefined ? {} : { success_description: setup.success_description }),
    };
    let report: PracticeReport = {
      learn_session_id: sessionId,
      practise: setup.practise,
      ...words,
      status: "running",
      message: "Practising.",
      rounds: [],
      repairs: [],
      findings: [],
      updated_at: now(),
      schema_version: 1,
    };
    await save(report);
    const base = await readPracticeBase(deps, setup.practise);
    await deps.sessions.setTestPolicy(sessionId, policy);
    await deps.sessions.start(sessionId, { adapters_requested: [] }, "system_inferred");

    // The agent's own actions, as the session's observations: written in order, labels only.
    // A session cancelled or deleted meanwhile ends the practice at once: nothing more is played or written.
    const stopped = new AbortController();
    const ended = () => {
      try {
        return isTerminalLearnSessionState(deps.sessions.get(sessionId).state);
      } catch {
        return true;
      }
    };
    let writes: Promise<unknown> = Promise.resolve();
    let firstEvent = true;
    const observe = (round: number, event: ExecutionProgress) => {
      if (stopped.signal.aborted || ended()) {
        stopped.abort();
        return;
      }
      const eventId = randomUUID();
      const label = event.kind === "step" ? `Round ${round}: ${event.label} — ${event.result}` : `Round ${round}: checkpoint "${event.goal}" ${event.status}`;
      writes = writes.then(async () => {
        await deps.memory.append(MemoryPaths.observationEvents(sessionId), {
          event_id: eventId,
          learn_session_id: sessionId,
          adapter_kind: "browser_dom",
          app_family: "browser",
          action_label: label.slice(0, 240),
          target_ref: (event.kind === "step" ? `step:${event.step_id}` : `checkpoint:${event.checkpoint_id}`).slice(0, 240),
          caused_state_change: false,
          redaction_mode: "mask_text",
          created_at: now(),
          schema_version: 1,
        });
        if (firstEvent) {
          firstEvent = false;
          await deps.sessions.noteMeaningfulEvent(sessionId, eventId);
        }
        if (event.kind === "checkpoint" && event.status !== "skipped") {
          await deps.events.emit(sessionId, event.status === "reached" ? "checkpoint.reached" : "checkpoint.failed", {
            checkpoint_id: event.checkpoint_id,
            goal: event.goal.slice(0, 240),
            round,
          });
        }
      });
    };

    const outcome = await practise({
      plan: base.plan,
      setup,
      policy,
      execute: deps.execute,
      onProgress: observe,
      signal: stopped.signal,
      now: () => deps.clock.now(),
    });
    await writes;
    if (stopped.signal.aborted || ended()) {
      // A deleted session's folder stays gone (§0C.22 rule 7): its report is not written back.
      if (deps.sessions.all().some((candidate) => candidate.learn_session_id === sessionId))
        await save({
          ...report,
          rounds: outcome.rounds,
          status: "failed",
          message: "The session was cancelled while the practice ran; nothing is proposed.",
        }).catch(() => undefined);
      return;
    }
    report = {
      ...report,
      rounds: outcome.rounds,
      repairs: outcome.repairs,
      findings: outcome.findings.map((finding) => finding.slice(0, 600)),
      message: outcome.message.slice(0, 600),
    };

    const current = deps.sessions.get(sessionId);
    if (current.state === "capturing") await deps.sessions.stop(sessionId, "system_inferred");
    if (outcome.status !== "repaired") {
      const status = outcome.status;
      // The session ends first: whoever reads the final report finds the session already cancelled.
      await deps.sessions.cancel(sessionId, "system_inferred", outcome.message.slice(0, 240));
      await save({ ...report, status, ...(status === "policy_violation" ? { error_code: "TEST_POLICY_VIOLATION" as const } : {}) });
      return;
    }
    const { record, runIds } = await writePracticeProposal(deps.memory, {
      sessionId,
      base,
      plan: outcome.plan,
      repairs: outcome.repairs,
      results: outcome.results,
      goal: setup.goal_summary,
      now,
    });
    await deps.proposals.adopt(record);
    const proposalId = record.proposal.proposal_id;
    const last = runIds[runIds.length - 1];
    await deps.sessions.advance(
      sessionId,
      ["reviewing", "drafting_proposal", ...(record.lint.passed ? (["testing_proposal", "ready_for_review"] as const) : [])],
      { proposal_id: proposalId, ...(last === undefined || !record.lint.passed ? {} : { validation_run_id: last }) },
      [
        {
          receipt: "learn.proposal.created",
          event: "learn.proposal.created",
          payload: { proposal_id: proposalId, checkpoint_lint_passed: record.lint.passed, repairs: outcome.repairs.length },
        },
        ...(record.lint.passed
          ? [
              {
                receipt: "learn.validation.completed" as const,
                event: "learn.validation.completed" as const,
                payload: { proposal_id: proposalId, validation_run_id: last, overall_result: "passed", rounds: outcome.rounds.length },
              },
            ]
          : []),
      ],
    );
    await save({ ...report, status: "proposed", proposal_id: proposalId });
  };

  return {
    launcher: {
      async check(request) {
        const setup = request.practice;
        if (setup === undefined) return;
        const base = await readPracticeBase(deps, setup.practise);
        checkInputNames(
          setup,
          base.plan.parameters.map((parameter) => parameter.name),
        );
      },
      launch(session, request) {
        const setup = request.practice;
        if (setup === undefined) return;
        const policy = policyOf(request);
        const work = run(session, setup, policy).catch(async (error: unknown) => {
          deps.logError?.({ err: error, learn_session_id: session.learn_session_id }, "practice failed");
          const code = error instanceof AppError ? error.code : "INTERNAL_ERROR";
          await save({
            learn_session_id: session.learn_session_id,
            practise: setup.practise,
            status: "failed",
            message: `The practice could not go on (${code}).`,
            rounds: [],
            repairs: [],
            findings: [],
            updated_at: now(),
            schema_version: 1,
          }).catch(() => undefined);
          await deps.sessions.cancel(session.learn_session_id, "system_inferred", "the practice could not go on").catch(() => undefined);
        });
        const tracked = work.finally(() => running.delete(tracked));
        running.add(tracked);
      },
    },

    async report(sessionId) {
      deps.sessions.get(sessionId);
      const report = await deps.memory.readJson(reportPath(sessionId), PracticeReportSchema);
      if (report === undefined) throw new AppError("LEARN_SESSION_NOT_FOUND", `Session ${sessionId} is not a practice.`);
      return report;
    },

    async settled() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

import { randomUUID } from "node:crypto";
import { isTerminalLearnSessionState, type LearnSession } from "../../../shared/learning/sessions/learn-session";
import { PracticeReportSchema, type PracticeReport, type PracticeSetup } from "../../../shared/learning/sessions/practice";
import type { TestPolicy } from "../../../shared/learning/sessions/test-policy";
import type { ExecutionProgress } from "../../execution/contract/executor-contract";
import { MemoryPaths } from "../../memory/memory-paths";
import { readPracticeBase, type PracticeBase } from "./practice-base";
import { practise, type PracticeDriverResult } from "./practice-driver";
import { writePracticeProposal } from "./practice-proposal";
import type { PracticeServiceDeps } from "./practice-service";

/** The report of a practice, beside the session's other learning files. */
export const reportPath = (sessionId: string) => `${MemoryPaths.observationFolder(sessionId)}/practice-report.json`;

export const nowOf = (deps: PracticeServiceDeps) => deps.clock.now().toISOString();

export async function saveReport(deps: PracticeServiceDeps, report: PracticeReport): Promise<void> {
  return deps.memory.writeJson(reportPath(report.learn_session_id), PracticeReportSchema.parse({ ...report, updated_at: nowOf(deps) }));
}

/** One practice, from the armed session to its proposal (or its end without one). */
export async function runPractice(deps: PracticeServiceDeps, session: LearnSession, setup: PracticeSetup, policy: TestPolicy): Promise<void> {
  const sessionId = session.learn_session_id;
  let report: PracticeReport = {
    learn_session_id: sessionId,
    practise: setup.practise,
    ...(setup.goal_summary === undefined ? {} : { goal_summary: setup.goal_summary }),
    ...(setup.success_description === undefined ? {} : { success_description: setup.success_description }),
    status: "running",
    message: "Practising.",
    rounds: [],
    repairs: [],
    findings: [],
    updated_at: nowOf(deps),
    schema_version: 1,
  };
  await saveReport(deps, report);
  const base = await readPracticeBase(deps, setup.practise);
  await deps.sessions.setTestPolicy(sessionId, policy);
  await deps.sessions.start(sessionId, { adapters_requested: [] }, "system_inferred");

  const observer = createObserver(deps, sessionId);
  const outcome = await practise({
    plan: base.plan,
    setup,
    policy,
    execute: deps.execute,
    onProgress: observer.observe,
    signal: observer.stopped.signal,
    now: () => deps.clock.now(),
  });
  await observer.flushed();
  if (observer.stopped.signal.aborted || observer.ended()) {
    // A deleted session's folder stays gone (§0C.22 rule 7): its report is not written back.
    if (deps.sessions.all().some((candidate) => candidate.learn_session_id === sessionId))
      await saveReport(deps, {
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
  await endPractice(deps, { sessionId, setup, base, outcome, report });
}

/**
 * The agent's own actions, as the session's observations: written in order, labels only. A session
 * cancelled or deleted meanwhile ends the practice at once: nothing more is played or written.
 */
function createObserver(deps: PracticeServiceDeps, sessionId: string) {
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
        created_at: nowOf(deps),
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
  return { stopped, ended, observe, flushed: () => writes };
}

interface PracticeEnd {
  sessionId: string;
  setup: PracticeSetup;
  base: PracticeBase;
  outcome: PracticeDriverResult;
  report: PracticeReport;
}

/** The session stopped; then cancelled with the report (nothing to repair, a policy stop), or the repairs proposed for review. */
async function endPractice(deps: PracticeServiceDeps, end: PracticeEnd): Promise<void> {
  const { sessionId, outcome, report } = end;
  const current = deps.sessions.get(sessionId);
  if (current.state === "capturing") await deps.sessions.stop(sessionId, "system_inferred");
  if (outcome.status !== "repaired") {
    const status = outcome.status;
    // The session ends first: whoever reads the final report finds the session already cancelled.
    await deps.sessions.cancel(sessionId, "system_inferred", outcome.message.slice(0, 240));
    await saveReport(deps, { ...report, status, ...(status === "policy_violation" ? { error_code: "TEST_POLICY_VIOLATION" as const } : {}) });
    return;
  }
  await proposeRepairs(deps, end);
}

async function proposeRepairs(deps: PracticeServiceDeps, { sessionId, setup, base, outcome, report }: PracticeEnd): Promise<void> {
  const { record, runIds } = await writePracticeProposal(deps.memory, {
    sessionId,
    base,
    plan: outcome.plan,
    repairs: outcome.repairs,
    results: outcome.results,
    goal: setup.goal_summary,
    now: () => nowOf(deps),
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
  await saveReport(deps, { ...report, status: "proposed", proposal_id: proposalId });
}

import { randomUUID } from "node:crypto";
import type { CreateLearnSessionRequest } from "../../../shared/learning/sessions/create-learn-session";
import type { LearnSession } from "../../../shared/learning/sessions/learn-session";
import { PracticeReportSchema, type PracticeReport, type PracticeSetup } from "../../../shared/learning/sessions/practice";
import { TestPolicySchema, type TestPolicy } from "../../../shared/learning/sessions/test-policy";
import type { Clock } from "../../common/clock";
import { AppError } from "../../errors/app-error";
import type { ExecuteInput, ExecuteResult } from "../../execution/contract/executor-contract";
import type { LearnEventLog } from "../sessions/learn-event-log";
import type { ProposalService } from "../proposals/proposal-service";
import type { ModeLauncher } from "../sessions/session-launch";
import type { SessionService } from "../sessions/session-service";
import { readPracticeBase, type PracticeBaseDeps } from "./practice-base";
import { nowOf, reportPath, runPractice, saveReport } from "./practice-run";

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
  const running = new Set<Promise<void>>();
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
        const work = runPractice(deps, session, setup, policy).catch((error: unknown) => practiceFailed(deps, session, setup, error));
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

/** A practice that could not go on: its report says so and its session is cancelled. */
async function practiceFailed(deps: PracticeServiceDeps, session: LearnSession, setup: PracticeSetup, error: unknown): Promise<void> {
  deps.logError?.({ err: error, learn_session_id: session.learn_session_id }, "practice failed");
  const code = error instanceof AppError ? error.code : "INTERNAL_ERROR";
  await saveReport(deps, {
    learn_session_id: session.learn_session_id,
    practise: setup.practise,
    status: "failed",
    message: `The practice could not go on (${code}).`,
    rounds: [],
    repairs: [],
    findings: [],
    updated_at: nowOf(deps),
    schema_version: 1,
  }).catch(() => undefined);
  await deps.sessions.cancel(session.learn_session_id, "system_inferred", "the practice could not go on").catch(() => undefined);
}

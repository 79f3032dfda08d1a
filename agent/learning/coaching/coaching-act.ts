import { randomUUID } from "node:crypto";
import type { CoachingTarget } from "../../../shared/learning/sessions/coaching";
import { TestPolicySchema } from "../../../shared/learning/sessions/test-policy";
import type { BrowserLease, ExecuteInput, ExecuteResult } from "../../execution/contract/executor-contract";
import type { RecorderFlow } from "../../../shared/execution/recorder-flow";
import { pageChange, readPage, type PageFacts } from "./coaching-page";

/**
 * "Do it" (issue #16, Coaching Agent): the step the person agreed to, done through the one executor
 * in their tab, then checked: the page must change as such a step changes it (a link or tab brings
 * another page or view; any other control, a visible change). Only clicks: the agent never types in
 * a coaching session, so nothing it does there can carry a value.
 */

/** Recorder selectors for a control known by role and name, best first. */
export function selectorsFor(target: Pick<CoachingTarget, "role" | "name">): string[][] {
  const name = target.name.replace(/"/g, "'");
  return [[`aria/${name}[role="${target.role}"]`], [`text/${name}`]];
}

/** The one-click flow the executor plays for a step. */
export function stepFlow(words: string, target: Pick<CoachingTarget, "role" | "name">): RecorderFlow {
  return { title: words.slice(0, 120), steps: [{ type: "click", selectors: selectorsFor(target), offsetX: 1, offsetY: 1 }], step_ids: ["coach-step"] };
}

export interface ActInput {
  words: string;
  target: CoachingTarget;
  /** The tab lent for the whole coaching; the executor borrows it and must not give it back. */
  lease: BrowserLease;
  allowedDomains: readonly string[];
  execute: (input: ExecuteInput) => Promise<ExecuteResult>;
  signal?: AbortSignal;
  /** How long the page may take to show the change (ms). */
  settleMs?: number;
}

export interface ActOutcome {
  done: boolean;
  outcome: string;
  page_check?: { changed: boolean; evidence: string };
}

const EXPECTS_NEW_PAGE = new Set(["link", "tab", "menuitem"]);

export async function actOnStep(input: ActInput): Promise<ActOutcome> {
  const before = (await readPage(input.lease)).facts;
  // The executor gives back what it borrows: here, a view of the coaching's lease that keeps the tab.
  const borrowed: BrowserLease = { ...input.lease, release: async () => undefined };
  const result = await input.execute({
    flow: stepFlow(input.words, input.target),
    checkpoints: [],
    parameters: [],
    values: {},
    policy: TestPolicySchema.parse({
      policy_id: randomUUID(),
      mode: "live_read_safe_write",
      allowed_domains: [...input.allowedDomains],
      max_actions: 1,
      schema_version: 1,
    }),
    browser: async () => borrowed,
    // The person said "Do it" to this very step: that is its confirmation.
    confirm: async () => true,
    onBehalfOfPerson: true,
    timeoutMs: 20_000,
    stepTimeoutMs: 5_000,
    ...(input.signal === undefined ? {} : { signal: input.signal }),
  });
  const step = result.steps.find((entry) => entry.test_case_id === "step:coach-step") ?? result.steps[result.steps.length - 1];
  if (result.overall !== "passed" || step?.result !== "passed") {
    return {
      done: false,
      outcome: `The assistant could not do it: ${(step?.details ?? result.policy_violation?.message ?? "the step did not run").slice(0, 400)}`,
    };
  }
  const check = await waitForChange(input.lease, before, EXPECTS_NEW_PAGE.has(input.target.role), input.settleMs ?? 4_000);
  return {
    done: check.changed,
    outcome: check.changed
      ? `Clicked ${input.target.role} "${input.target.name.slice(0, 80)}".`
      : `Clicked ${input.target.role} "${input.target.name.slice(0, 80)}", but the page did not change as expected.`,
    page_check: check,
  };
}

async function waitForChange(
  lease: BrowserLease,
  before: PageFacts,
  expectNewPage: boolean,
  settleMs: number,
): Promise<{ changed: boolean; evidence: string }> {
  const until = Date.now() + settleMs;
  let last = { changed: false, evidence: "nothing in the page changed" };
  for (;;) {
    try {
      last = pageChange(before, (await readPage(lease, undefined, { waitMs: 1_000 })).facts, expectNewPage);
    } catch {
      // The page is between two documents: read it again.
    }
    if (last.changed || Date.now() >= until) return last;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

import type { CheckpointVerificationReceipt } from "../../../shared/learning/checkpoints/checkpoint-receipt";
import type { LearningReceipt, LearningReceiptKind } from "../../../shared/learning/sessions/receipts";
import type { ProposalDetailResponse, ProposalInstallResponse, ValidationRunsResponse } from "../../../shared/learning/route-contracts";
import { isRouteMissing } from "../../agent-link/transport/agent-failure";
import { checkpointProgress, type CheckpointProgressRow } from "../checkpoints/checkpoint-progress";
import { describeFailure } from "../../common/failure-text";
import { report, type LearnDeps } from "../../common/learn-deps";
import { readLintReport, type CheckpointLintReportView } from "./lint-report";
import { moreTestsRequestOf, type MoreTestsDraft } from "./more-tests-form";
import { parametersFromSkillMarkdown, type SkillParameter } from "./skill-parameters";

export type Loadable<T> =
  { status: "loading" } | { status: "ready"; value: T } | { status: "unavailable"; reason: string } | { status: "error"; message: string };

/** Field edits the revise route accepts (shared/learning/proposals/proposal-edits). */
export type { ProposalEdits } from "../../../shared/learning/proposals/proposal-edits";
import type { ProposalEdits } from "../../../shared/learning/proposals/proposal-edits";

/** The receipts that tell an install saga's progress (§0C.13), in the order the saga writes them. */
export const INSTALL_SAGA_KINDS: readonly LearningReceiptKind[] = [
  "learn.install.started",
  "bridge.rebuild.started",
  "bridge.rebuild.completed",
  "bridge.rebuild.failed",
  "ability.snapshot.updated",
  "ability.route.enabled",
  "learn.install.completed",
  "learn.install.failed",
];

export type ReviewBusy = "revise" | "reject" | "validate" | "install" | "approve" | "request_more_tests";

/**
 * The proposal review drawer: the proposal and its interpretation, checkpoint progress from the
 * session's checkpoint receipts (§0C.9B), the draft SKILL.md as text, lint findings, for an
 * improvement its changes to the installed skill, and the decisions: validate, install, approve,
 * revise, reject and request more tests.
 */
/**
 * Whether validation can rehearse a proposal's flow in a browser, from its interpretation's control
 * surfaces: only a flow that names surfaces and none of them the browser (a terminal routine) is
 * never replayed. No surfaces (a practice repair or an example, not compiled from a demonstration)
 * says nothing, so the flow is rehearsed as its steps allow.
 */
export function flowActsInBrowser(surfaces: readonly string[] | undefined): boolean {
  return surfaces === undefined || surfaces.length === 0 || surfaces.includes("native_openclaw_browser");
}

export class ProposalReviewState {
  detail = $state.raw<ProposalDetailResponse | null>(null);
  markdown = $state.raw<Loadable<string>>({ status: "loading" });
  receipts = $state.raw<Loadable<CheckpointVerificationReceipt[]>>({ status: "loading" });
  loading = $state(true);
  busy = $state<ReviewBusy | null>(null);
  validation = $state.raw<Loadable<ValidationRunsResponse>>({ status: "loading" });
  /** The install saga's receipts for this proposal, oldest first. */
  installSteps = $state.raw<LearningReceipt[]>([]);
  installed = $state.raw<ProposalInstallResponse | null>(null);
  error = $state<string | null>(null);
  message = $state<string | null>(null);
  readonly proposalId: string;
  readonly #deps: LearnDeps;

  constructor(deps: LearnDeps, proposalId: string) {
    this.#deps = deps;
    this.proposalId = proposalId;
  }

  /** §0C.9B rows; empty while the detail is loading. */
  get progress(): CheckpointProgressRow[] {
    const checkpoints = this.detail?.interpretation?.checkpoints ?? [];
    return checkpointProgress(checkpoints, this.receipts.status === "ready" ? this.receipts.value : []);
  }

  get lint(): CheckpointLintReportView | undefined {
    return readLintReport(this.detail?.checkpoint_lint_report);
  }

  /**
   * Whether validation can rehearse anything: only steps in web pages are replayed, in a separate
   * browser. A routine on this computer (terminal commands) is never run by validation.
   */
  get actsInBrowser(): boolean {
    return flowActsInBrowser(this.detail?.interpretation?.preferred_control_surfaces);
  }

  get parameters(): SkillParameter[] {
    return this.markdown.status === "ready" ? parametersFromSkillMarkdown(this.markdown.value) : [];
  }

  async load(): Promise<void> {
    this.loading = true;
    try {
      const detail = await this.#deps.client.proposalDetail(this.proposalId);
      this.detail = detail;
      this.error = null;
      await Promise.all([
        this.#loadMarkdown(),
        this.#loadReceipts(detail.proposal.learn_session_id),
        this.#loadValidation(),
        this.#loadInstallSteps(detail.proposal.learn_session_id),
      ]);
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
    } finally {
      this.loading = false;
    }
  }

  /** One optional part of the review: ready, not offered by this agent (route missing), or failed. */
  async #loadPart<T>(fetch: () => Promise<T>, unavailable: string): Promise<Loadable<T>> {
    try {
      return { status: "ready", value: await fetch() };
    } catch (error) {
      if (isRouteMissing(error)) return { status: "unavailable", reason: unavailable };
      report(this.#deps, error);
      return { status: "error", message: describeFailure(error) };
    }
  }

  async #loadMarkdown(): Promise<void> {
    this.markdown = await this.#loadPart(
      async () => (await this.#deps.client.skillMarkdown(this.proposalId)).markdown,
      "The SKILL.md preview is not available yet on this agent.",
    );
  }

  async #loadReceipts(sessionId: string | undefined): Promise<void> {
    if (sessionId === undefined) {
      this.receipts = { status: "ready", value: [] };
      return;
    }
    this.receipts = await this.#loadPart(
      async () => (await this.#deps.client.checkpointReceipts(sessionId)).receipts,
      "Checkpoint receipts are not available yet on this agent.",
    );
  }

  async #loadValidation(): Promise<void> {
    const unavailable = "Validation arrives with the next agent update.";
    if (!this.#deps.features.has("validation_runs")) {
      this.validation = { status: "unavailable", reason: unavailable };
      return;
    }
    this.validation = await this.#loadPart(() => this.#deps.client.validationRuns(this.proposalId), unavailable);
  }

  async #loadInstallSteps(sessionId: string | undefined): Promise<void> {
    if (sessionId === undefined) return;
    try {
      const answer = await this.#deps.client.receipts(1, 100, sessionId);
      this.installSteps = answer.receipts
        .filter(
          (receipt) => INSTALL_SAGA_KINDS.includes(receipt.receipt_kind) && (receipt.proposal_id === undefined || receipt.proposal_id === this.proposalId),
        )
        .reverse();
    } catch (error) {
      report(this.#deps, error);
    }
  }

  /** Refreshes everything a decision may have changed. */
  async #afterDecision(): Promise<void> {
    const detail = await this.#deps.client.proposalDetail(this.proposalId);
    this.detail = detail;
    await Promise.all([
      this.#loadMarkdown(),
      this.#loadReceipts(detail.proposal.learn_session_id),
      this.#loadValidation(),
      this.#loadInstallSteps(detail.proposal.learn_session_id),
    ]);
  }

  async #decide(busy: ReviewBusy, work: () => Promise<string>): Promise<boolean> {
    if (this.busy !== null) return false;
    this.busy = busy;
    this.message = null;
    this.error = null;
    try {
      this.message = await work();
      return true;
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
      // A failed validation is kept by the agent and sends the proposal back to drafting: show it.
      await this.#afterDecision().catch(() => undefined);
      return false;
    } finally {
      this.busy = null;
    }
  }

  /** Lint, trigger tests, dependencies and a rehearsal with the person's test values (never stored). */
  validate(testValues: Record<string, string>): Promise<boolean> {
    return this.#decide("validate", async () => {
      const values = Object.fromEntries(Object.entries(testValues).filter(([, value]) => value.trim() !== ""));
      const { validation_run: run } = await this.#deps.client.validateProposal(this.proposalId, { test_values: values, schema_version: 1 });
      await this.#afterDecision();
      return run.overall_result === "passed"
        ? "Validation passed."
        : run.overall_result === "partial"
          ? "Validation finished with some checks skipped; see the steps below."
          : "Validation failed; see the steps below. The proposal went back to drafting: revise it, then validate again.";
    });
  }

  /**
   * §0C.18 Request More Tests: the examples become trigger tests of a new draft revision, which
   * goes back to draft until validated.
   */
  requestMoreTests(draft: MoreTestsDraft): Promise<boolean> {
    const checked = moreTestsRequestOf(draft);
    if (!checked.ok) {
      this.error = checked.problems.join(" ");
      return Promise.resolve(false);
    }
    return this.#decide("request_more_tests", async () => {
      const { added_trigger_tests: added, ...detail } = await this.#deps.client.requestMoreTests(this.proposalId, checked.request);
      this.detail = detail;
      await this.#afterDecision();
      const total = added.positive.length + added.paraphrases.length + added.negative.length;
      return `Added ${total} trigger ${total === 1 ? "test" : "tests"}: ${added.positive.length + added.paraphrases.length} that should use it, ${added.negative.length} that should not. It is a draft again until you validate it.`;
    });
  }

  installPrivately(): Promise<boolean> {
    return this.#decide("install", async () => {
      this.installed = await this.#deps.client.installPrivately(this.proposalId);
      await this.#afterDecision();
      return `Installed for you only, as ${this.installed.ability_id}. It stays under Pending Abilities until you approve it.`;
    });
  }

  approve(note: string): Promise<boolean> {
    return this.#decide("approve", async () => {
      await this.#deps.client.approveProposal(this.proposalId, note.trim() === "" ? undefined : note.trim().slice(0, 1000));
      await this.#afterDecision();
      return "Approved. It is now under Skills.";
    });
  }

  async revise(instructions: string, edits: ProposalEdits): Promise<boolean> {
    this.busy = "revise";
    this.message = null;
    try {
      this.detail = await this.#deps.client.reviseProposal(this.proposalId, {
        revision_instructions: instructions.trim().slice(0, 2000),
        edited_fields: { ...edits },
      });
      this.error = null;
      this.message = "Revised. The proposal below is the new revision.";
      await this.#loadMarkdown();
      return true;
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
      return false;
    } finally {
      this.busy = null;
    }
  }

  async reject(reason: string): Promise<boolean> {
    const text = reason.trim();
    if (text === "") {
      this.error = "Say why you reject it: the reason is kept with the decision.";
      return false;
    }
    this.busy = "reject";
    this.message = null;
    try {
      this.detail = await this.#deps.client.rejectProposal(this.proposalId, text.slice(0, 1000));
      this.error = null;
      this.message = "Rejected. It is kept under History.";
      return true;
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
      return false;
    } finally {
      this.busy = null;
    }
  }
}

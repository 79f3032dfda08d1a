import type { CoachingHighlight, CoachingRead } from "../../../shared/observation/coaching-read";
import type { Browser, Page } from "puppeteer-core";
import type { ConfirmationReason, PageSeen, RunWhere } from "../../../shared/execution/run-contract";
import type { ConsequenceClass } from "../../../shared/execution/run-grants";
import type { TabEndReason } from "../../../shared/observation/tab-relay-protocol";
import type { TestPolicy } from "../../../shared/learning/sessions/test-policy";
import type { RecorderFlow } from "../../../shared/execution/recorder-flow";
import type { SkillParameter, CheckpointPlan } from "../../../shared/execution/checkpoint-plan";
import type { ReadElsewhere } from "./policy-guard";

/**
 * The one executor's interface (issue #21, DESIGN "One executor"): rehearsal, runs of installed
 * abilities, practice and coaching all call `execute(input)`. Shapes here are the agreement between
 * the executor, the run service and the in-tab driver; extend them, do not rename them.
 */

/** `sign_in` (issue #35): a sign-in whose steps are skipped when the browser is already signed in, the checkpoint still proved. */
export type ExecutionCheckpoint = Pick<CheckpointPlan, "checkpoint_id" | "goal" | "success_condition" | "step_ids"> &
  Partial<Pick<CheckpointPlan, "verification" | "sign_in">>;
export type ExecutionParameter = Pick<SkillParameter, "name" | "type_hint">;

/**
 * A browser the executor may drive, and how to give it back. What the executor needs of a lease:
 * - `page` is everything it acts in: goto, element queries (CSS, `::-p-aria`, `::-p-text`,
 *   `::-p-xpath`, shadow roots, child frames), clicks and keys through Puppeteer's mouse and
 *   keyboard (trusted input), `evaluate`, the accessibility tree, `title`/`url`, a PNG screenshot;
 *   `page.on("request"|"dialog")`, `waitForNavigation`, `exposeFunction` and
 *   `evaluateOnNewDocument` (taken off again after the execution), and a CDP session of its own
 *   (`page.createCDPSession()`, `Fetch.enable`/`continueRequest`/`failRequest`) for the network guard.
 * - `browser` is used only for a managed lease (`where: "managed"`), whose guard is set on the
 *   browser target so every page, frame and worker is covered; for `user_tab` the guard covers the
 *   page's own target (its same-process frames), never browser-wide target discovery.
 * - The executor never closes `page`, never opens another page, and skips `setViewport` in a
 *   `user_tab` lease. It calls `release()` exactly once, when it is done or abandoned.
 */
export interface BrowserLease {
  where: RunWhere;
  browser: Browser;
  /** The page to act in: a fresh page (managed) or the user's tab (user_tab). */
  page: Page;
  /** Closes the managed browser and its profile, or detaches from the user's tab. Never throws. */
  release(): Promise<void>;
  /**
   * user_tab only: calls back once if the tab is taken back before `release` (Stop in the page,
   * Chrome's debugging bar cancelled, tab closed or gone off-site, extension link lost). The run
   * must stop at once: the page's commands already fail from that moment.
   */
  onStop?(listener: (stop: LeaseStop) => void): void;
  /**
   * user_tab leases of the Coaching Agent only (shared/observation/coaching-read.ts): the page as the
   * tab's recorder read it, every typed value cut out; `read` null when no recorder answered.
   */
  readRecorded?(highlight: CoachingHighlight | null): Promise<{ read: CoachingRead | null; why?: string | undefined }>;
}

export interface LeaseStop {
  reason: Exclude<TabEndReason, "released">;
  /** Says what happened, for the run's failure message; never carries a page value. */
  message: string;
}

/** Gets a browser for one execution; the managed one is the default. Throws `BrowserUnavailable` when none can be had. */
export type BrowserProvider = ((options: { deadline: number }) => Promise<BrowserLease>) & {
  /** What getting this browser is called in a result when it fails ("Start a fresh headless Chromium profile"). */
  label?: string;
};

export class BrowserUnavailable extends Error {
  override name = "BrowserUnavailable";
}

/** A step with consequences (send, pay, delete, publish) asks before it is done. */
export interface ConfirmationRequest {
  step_id: string;
  step_label: string;
  reason: ConfirmationReason;
  /** Issue #33: the host (and port) of the page the step acts on, when it has one: a standing grant's site term. */
  site_host?: string | undefined;
  /** Issue #33: whether the step deletes or pays (flow-plan's word list): no grant covers it unless that class was ticked. */
  consequence_classes?: ConsequenceClass[] | undefined;
}

/** Live progress, in order; labels and details are already free of input values. */
export type ExecutionProgress =
  | { kind: "step"; step_id: string; label: string; result: "passed" | "failed" | "skipped"; details: string; relocated?: { from: string; to: string } }
  | { kind: "checkpoint"; checkpoint_id: string; goal: string; status: "reached" | "failed" | "skipped"; evidence: string };

export interface ExecuteInput {
  flow: RecorderFlow;
  checkpoints: readonly ExecutionCheckpoint[];
  parameters: readonly ExecutionParameter[];
  /** Values by parameter name: test values (rehearsal) or the run's inputs. Never stored by the executor. */
  values: Readonly<Record<string, string>>;
  policy: TestPolicy;
  /** Where to act; by default a fresh managed headless Chromium. */
  browser?: BrowserProvider;
  /** Whole execution, browser start included. */
  timeoutMs?: number;
  /** How long one step may wait for its element, and a checkpoint for its state. */
  stepTimeoutMs?: number;
  /** Aborting stops at once: the current step is abandoned and nothing after it runs. */
  signal?: AbortSignal;
  /**
   * Asked before a step with consequences. Absent (rehearsal): the test policy decides (a dry run
   * skips the final committing step). Resolves false: the step is not done and the execution stops.
   */
  confirm?: (request: ConfirmationRequest) => Promise<boolean>;
  onProgress?: (event: ExecutionProgress) => void;
  /** Where a screenshot of the page is written when the execution stops short (none without it). */
  screenshotPath?: string;
  now?: () => Date;
  /**
   * Whether a page-verified checkpoint that does not hold stops the execution (the rest skipped).
   * Default: yes when `confirm` is given (a run), no otherwise (a rehearsal reports every checkpoint).
   */
  stopOnCheckpointFailure?: boolean;
  /** Wording of what is reported: a rehearsal speaks of test values and of "the rehearsal". Default `run`. */
  purpose?: "rehearsal" | "run";
  /**
   * A run the person asked for, under the run's own policy (no §0C.14 test policy given): real
   * sites load fonts, scripts and images from other hosts (CDNs, analytics), so the page's own
   * reads (GET/HEAD, not documents) may go anywhere, and a DELETE may go during a step the person
   * confirmed. Documents off the sites and writes to other origins are still refused. Default false:
   * every request follows the policy, as in a rehearsal.
   */
  onBehalfOfPerson?: boolean;
}

export interface ExecuteResult {
  /** `passed` only when every step ran and every page-verified checkpoint was confirmed in the page. */
  overall: "passed" | "failed" | "partial";
  /**
   * Steps and checkpoints in the order they were done: `test_case_id` is `step:<step id>` (set-up
   * steps `step:setup-N`; `step:browser`, `step:flow`, `step:error` when nothing could be replayed)
   * or `checkpoint:<checkpoint id>`.
   */
  steps: Array<{
    test_case_id: string;
    label: string;
    result: "passed" | "failed" | "skipped";
    details: string;
    resolved_selector?: { index: number; selector: string[] };
    relocated?: { from: string; to: string };
  }>;
  /** The checkpoints alone, in order, as a run reports them (`passed` is `reached`). */
  checkpoints?: Array<{ checkpoint_id: string; goal: string; status: "reached" | "failed" | "skipped"; evidence: string }>;
  policy_violation?: { code: "TEST_POLICY_VIOLATION"; message: string };
  /**
   * Reads from hosts off the allowed sites that the policy let through (`live_read_safe_write`, or a
   * run the person asked for): by origin and kind, so a person sees where the page read from. Absent
   * when there were none.
   */
  reads_elsewhere?: ReadElsewhere[];
  /** Why it ended early: cancelled (signal), declined (confirmation refused), or undefined. */
  stopped?: "cancelled" | "declined";
  /** The page where it stopped short, when it did. */
  page_seen?: PageSeen;
  started_at: string;
  completed_at: string;
}

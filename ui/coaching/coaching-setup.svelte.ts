import type { CoachingSetup } from "../../shared/learning/sessions/coaching";
import type { LearnSession } from "../../shared/learning/sessions/learn-session";
import { describeFailure, failureCode } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";
import { siteFromUrl } from "../../shared/observation/site-allowlist";

export interface CoachingSetupOptions {
  /** The session exists with its steps: start it with the pending answer to the site-access request. */
  onCreated(session: LearnSession, access: Promise<boolean>): void;
  /** "Another learning session is still open": show it. */
  onShowActive(): void;
}

export interface CoachingStepDraft {
  words: string;
  hint: string;
}

/** The form's problems, in words; empty when it can be sent (issue #16). */
export function coachingProblems(startUrl: string, steps: readonly CoachingStepDraft[]): string[] {
  const problems: string[] = [];
  if (siteFromUrl(startUrl.trim()) === undefined) problems.push("Give the address of the page the task starts on (http or https).");
  const filled = steps.filter((step) => step.words.trim() !== "");
  if (filled.length === 0) problems.push("Say at least one step in your own words.");
  if (filled.some((step) => step.words.trim().length < 2)) problems.push("Each step needs a few words.");
  if (steps.some((step) => step.words.trim() === "" && step.hint.trim() !== "")) problems.push("A hint needs the step it belongs to.");
  return problems;
}

/** The request for the agent: the filled steps, in order, hints only where given. */
export function coachingRequest(startUrl: string, steps: readonly CoachingStepDraft[]): CoachingSetup {
  return {
    start_url: startUrl.trim(),
    steps: steps
      .filter((step) => step.words.trim() !== "")
      .map((step) => ({ words: step.words.trim(), ...(step.hint.trim() === "" ? {} : { hint: step.hint.trim() }) })),
  };
}

/**
 * Coaching Agent set-up (issue #16): the page the task starts on, and the steps in the person's own
 * words with a hint each. The assistant takes turns in a tab of this browser, so the person's consent
 * to that (asked once, kept by the extension) comes first; the session records like a demonstration,
 * masked as always.
 */
export class CoachingSetupState {
  startUrl = $state("");
  steps = $state<CoachingStepDraft[]>([]);
  /** Test policy: the rehearsal stops before the final committing step (as for a demonstration). */
  dryRun = $state(true);
  attempted = $state(false);
  problems = $derived(this.attempted ? coachingProblems(this.startUrl, this.steps) : []);
  busy = $state(false);
  error = $state<string | null>(null);
  blockedByActive = $state(false);
  /** "Let the assistant act in your tabs?" is asked before the first coaching. */
  askingTabConsent = $state(false);
  #access: Promise<boolean> | undefined;
  readonly #deps: LearnDeps;
  readonly #options: CoachingSetupOptions;

  constructor(deps: LearnDeps, options: CoachingSetupOptions) {
    this.#deps = deps;
    this.#options = options;
  }

  /** A fresh form, the start page prefilled with the current tab's address. */
  async begin(): Promise<void> {
    this.steps = [
      { words: "", hint: "" },
      { words: "", hint: "" },
      { words: "", hint: "" },
    ];
    this.attempted = false;
    this.error = null;
    this.blockedByActive = false;
    this.askingTabConsent = false;
    const url = await this.#deps.browser.currentTabUrl().catch(() => undefined);
    if (url !== undefined && this.startUrl === "") this.startUrl = url;
  }

  addStep(): void {
    if (this.steps.length < 20) this.steps = [...this.steps, { words: "", hint: "" }];
  }

  removeStep(index: number): void {
    this.steps = this.steps.filter((_, at) => at !== index);
  }

  /** Start: call straight from the click handler (Chrome's site-access prompt needs the gesture). */
  submit(): void {
    if (this.busy) return;
    this.attempted = true;
    this.askingTabConsent = false;
    if (coachingProblems(this.startUrl, this.steps).length > 0) return;
    const site = siteFromUrl(this.startUrl.trim()) as string;
    this.#access = this.#deps.browser.requestSiteAccess([site]);
    this.busy = true;
    this.error = null;
    void (async () => {
      try {
        const reply = this.#deps.browser.tabRunAccess === undefined ? null : await this.#deps.browser.tabRunAccess().catch(() => null);
        if (reply === null) {
          this.error = "The extension did not answer: coaching needs it to let the assistant act in a tab. Reload it and try again.";
          return;
        }
        if (!reply.debugger_available) {
          this.error = "Chrome does not let this extension act in your tabs here (a policy withholds it), so the assistant cannot take turns with you.";
          return;
        }
        if (!reply.in_tab_allowed) {
          this.askingTabConsent = true;
          return;
        }
        await this.#create(site);
      } finally {
        this.busy = false;
      }
    })();
  }

  /** The person's answer to "Let the assistant act in your tabs?": yes starts the coaching. */
  async allowTabs(allowed: boolean): Promise<void> {
    // Its buttons are disabled meanwhile: the question stays until it can be answered.
    if (this.busy) return;
    this.askingTabConsent = false;
    if (!allowed) {
      this.error = "Coaching needs the assistant to act in a tab of this browser; nothing was started.";
      return;
    }
    if (this.#deps.browser.allowInTabRuns === undefined) {
      // Never a click that does nothing: say why nothing started.
      this.error = "The extension did not answer: coaching needs it to let the assistant act in a tab. Reload it and try again.";
      return;
    }
    this.busy = true;
    try {
      const reply = await this.#deps.browser.allowInTabRuns(true).catch(() => null);
      if (reply?.in_tab_allowed !== true) {
        this.error = "The extension did not keep your answer. Try again.";
        return;
      }
      await this.#create(siteFromUrl(this.startUrl.trim()) as string);
    } finally {
      this.busy = false;
    }
  }

  async #create(site: string): Promise<void> {
    const request = coachingRequest(this.startUrl, this.steps);
    try {
      const created = await this.#deps.client.createSession({
        entry_mode: "coaching_agent",
        observation_mode: "outside_agent",
        build_policy: "build_then_review",
        execution_mode: "guided",
        target_kind: "new_skill",
        target_app_whitelist: [site],
        target_app_family: "browser",
        ask_before_build: false,
        allow_private_install: false,
      });
      const id = created.session.learn_session_id;
      await this.#deps.client.setRedaction(id, { text_entry: "mask_text", consent: false });
      const withPolicy = await this.#deps.client.setTestPolicy(id, {
        test_policy: {
          policy_id: crypto.randomUUID(),
          mode: this.dryRun ? "dry_run_only" : "safe_target_only",
          safe_targets: [],
          forbid_destructive_writes: true,
          forbid_external_send: true,
          allowed_domains: [site],
          max_actions: 40,
          cleanup_required: false,
          schema_version: 1,
        },
      });
      await this.#deps.client.setUpCoaching(id, request);
      this.#options.onCreated(withPolicy.session, this.#access ?? Promise.resolve(true));
    } catch (error) {
      report(this.#deps, error);
      this.blockedByActive = failureCode(error) === "LEARN_SESSION_ALREADY_ACTIVE";
      this.error = describeFailure(error);
    }
  }

  showActive(): void {
    this.#options.onShowActive();
  }
}

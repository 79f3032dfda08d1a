import type { AbilityRunSpec, RunRecord, RunWhere } from "../../shared/execution/run-contract";
import { describeFailure, failureCode } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";
import { runFormProblems, runInputValues, tabRunProblem } from "./run-view";

export interface RunFormOptions {
  /** The agent accepted the run: follow it. */
  onStarted(run: RunRecord): void;
}

/**
 * The form of one run (issue #21): the ability's inputs, where it runs. Values live in this
 * object only: nothing here is written to the panel's storage, and secret values are dropped as
 * soon as the agent has accepted the run (used and forgotten).
 */
export class RunFormState {
  readonly spec: AbilityRunSpec;
  values = $state<Record<string, string>>({});
  where = $state<RunWhere>("managed");
  /** Set at the first Run: from then on the problems follow the form as it is edited. */
  attempted = $state(false);
  busy = $state(false);
  error = $state<string | null>(null);
  /** Said after a change the person made (consent withdrawn). */
  notice = $state<string | null>(null);
  /** Whether the person has let the assistant act in their tabs, as the extension last said (null: not asked yet). */
  tabAllowed = $state<boolean | null>(null);
  /** "Let the assistant act in your tabs?" is waiting for the person's answer (first in-tab run). */
  askingTabConsent = $state(false);
  readonly #deps: LearnDeps;
  readonly #options: RunFormOptions;

  constructor(deps: LearnDeps, spec: AbilityRunSpec, options: RunFormOptions) {
    this.#deps = deps;
    this.spec = spec;
    this.#options = options;
  }

  get problems(): string[] {
    return this.attempted ? runFormProblems(this.spec, this.values) : [];
  }

  /** "In my browser" needs the extension to lend a tab; a panel outside the extension cannot. */
  get canRunInTab(): boolean {
    return this.#deps.browser.tabRunAccess !== undefined && this.#deps.browser.allowInTabRuns !== undefined;
  }

  setValue(name: string, value: string): void {
    this.values[name] = value;
  }

  /**
   * Run. "In my browser" first asks the extension whether it can lend a tab; at the first such
   * run it asks the person ({@link askingTabConsent}) and goes on from {@link allowTabRuns}.
   */
  async submit(): Promise<void> {
    if (this.busy || !this.spec.runnable) return;
    this.attempted = true;
    this.askingTabConsent = false;
    if (runFormProblems(this.spec, this.values).length > 0) return;
    this.busy = true;
    this.error = null;
    try {
      if (this.where === "user_tab" && this.canRunInTab) {
        const reply = await this.#deps.browser.tabRunAccess!().catch(() => null);
        if (reply !== null) this.tabAllowed = reply.in_tab_allowed;
        if (reply !== null && !reply.in_tab_allowed && reply.debugger_available) {
          this.askingTabConsent = true;
          return;
        }
        const problem = tabRunProblem(reply);
        if (problem !== null) {
          this.error = problem;
          return;
        }
        await this.#start("user_tab");
      } else {
        await this.#start("managed");
      }
    } finally {
      this.busy = false;
    }
  }

  /** The person's answer to "Let the assistant act in your tabs?": yes runs now; no runs nothing and chooses a separate browser. */
  async allowTabRuns(allowed: boolean): Promise<void> {
    if (this.busy || !this.canRunInTab) return;
    this.askingTabConsent = false;
    if (!allowed) {
      this.where = "managed";
      return;
    }
    this.busy = true;
    this.error = null;
    try {
      const reply = await this.#deps.browser.allowInTabRuns!(true).catch(() => null);
      if (reply !== null) this.tabAllowed = reply.in_tab_allowed;
      const problem = reply?.in_tab_allowed === false ? "The extension did not keep your answer. Try again." : tabRunProblem(reply);
      if (problem !== null) {
        this.error = problem;
        return;
      }
      await this.#start("user_tab");
    } finally {
      this.busy = false;
    }
  }

  /** Withdraws the consent to act in tabs: the next in-tab run asks again. */
  async withdrawTabRuns(): Promise<void> {
    if (!this.canRunInTab) return;
    const reply = await this.#deps.browser.allowInTabRuns!(false).catch(() => null);
    if (reply !== null) this.tabAllowed = reply.in_tab_allowed;
    this.where = "managed";
    this.notice = reply?.in_tab_allowed === false ? "Withdrawn: the assistant will ask again before it acts in your tabs." : null;
    this.error = reply === null ? "The extension did not answer; nothing changed." : null;
  }

  async #start(where: RunWhere): Promise<void> {
    try {
      const { run } = await this.#deps.client.startRun({
        ability_id: this.spec.ability_id,
        inputs: runInputValues(this.spec, this.values),
        where,
        caller: "side_panel",
        schema_version: 1,
      });
      this.#forgetSecrets();
      this.#options.onStarted(run);
    } catch (error) {
      report(this.#deps, error);
      // The generic advice for a missing adapter is about watching a demonstration, not about runs.
      this.error = failureCode(error) === "ADAPTER_UNAVAILABLE" && error instanceof Error ? error.message : describeFailure(error);
    }
  }

  #forgetSecrets(): void {
    for (const input of this.spec.inputs) {
      if (input.secret || input.type === "secret") delete this.values[input.name];
    }
  }
}

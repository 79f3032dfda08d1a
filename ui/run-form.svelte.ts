import type { AbilityRunSpec, RunRecord, RunWhere } from "../shared/execution/run-contract";
import { describeFailure } from "./failure-text";
import { report, type LearnDeps } from "./learn-deps";
import { runFormProblems, runInputValues } from "./run-view";

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

  /** "In my browser" needs the extension to run in a tab; this build may not have it yet. */
  get canRunInTab(): boolean {
    return this.#deps.browser.requestTabRunAccess !== undefined;
  }

  setValue(name: string, value: string): void {
    this.values[name] = value;
  }

  /**
   * Run: call straight from the click handler. "In my browser" asks Chrome for its optional
   * permission first, synchronously, while the click still counts as a user gesture.
   */
  submit(): void {
    if (this.busy || !this.spec.runnable) return;
    this.attempted = true;
    if (runFormProblems(this.spec, this.values).length > 0) return;
    const where = this.where === "user_tab" && this.canRunInTab ? "user_tab" : "managed";
    const access = where === "user_tab" ? this.#deps.browser.requestTabRunAccess!(this.spec.sites) : Promise.resolve(true);
    const inputs = runInputValues(this.spec, this.values);
    this.busy = true;
    this.error = null;
    void (async () => {
      try {
        if (!(await access.catch(() => false))) {
          this.error = "Chrome did not allow the run in your browser. Run it in a separate browser, or allow it when Chrome asks.";
          return;
        }
        const { run } = await this.#deps.client.startRun({
          ability_id: this.spec.ability_id,
          inputs,
          where,
          caller: "side_panel",
          schema_version: 1,
        });
        this.#forgetSecrets();
        this.#options.onStarted(run);
      } catch (error) {
        report(this.#deps, error);
        this.error = describeFailure(error);
      } finally {
        this.busy = false;
      }
    })();
  }

  #forgetSecrets(): void {
    for (const input of this.spec.inputs) {
      if (input.secret || input.type === "secret") delete this.values[input.name];
    }
  }
}

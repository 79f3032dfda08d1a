import type { AbilityRunSpec, RunRecord } from "../../shared/execution/run-contract";
import { describeFailure } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";
import { RunFormState } from "./run-form.svelte";
import { RunGrantsState } from "./run-grants.svelte";
import { RunHistoryState } from "./run-history.svelte";
import { RunProgressState, type RunProgressOptions } from "./run-progress.svelte";

/**
 * Skills → Run (issue #21): the run view of one ability at a time: its form, the run it follows,
 * and its past runs. Going back to the list hides the view; a run keeps being followed until
 * another ability's run view is opened.
 */
export class RunPanelState {
  abilityId = $state<string | null>(null);
  visible = $state(false);
  status = $state<"closed" | "loading" | "ready" | "error">("closed");
  spec = $state.raw<AbilityRunSpec | null>(null);
  form = $state.raw<RunFormState | null>(null);
  progress = $state.raw<RunProgressState | null>(null);
  history = $state.raw<RunHistoryState | null>(null);
  error = $state<string | null>(null);
  /** Issue #33: each skill's standing grants, shown under it in Skills. */
  readonly grants: RunGrantsState;
  readonly #deps: LearnDeps;
  readonly #options: RunProgressOptions;

  constructor(deps: LearnDeps, options: RunProgressOptions = {}) {
    this.#deps = deps;
    this.#options = options;
    this.grants = new RunGrantsState(deps);
  }

  /** Opens the run view of this ability, with its run-spec when Skills already has it. */
  async open(abilityId: string, spec?: AbilityRunSpec): Promise<void> {
    this.visible = true;
    if (this.abilityId === abilityId && this.spec !== null) return;
    this.#reset();
    this.abilityId = abilityId;
    this.history = new RunHistoryState(this.#deps, abilityId);
    void this.history.load();
    if (spec === undefined) {
      this.status = "loading";
      try {
        spec = await this.#deps.client.runSpec(abilityId);
      } catch (error) {
        report(this.#deps, error);
        if (this.abilityId !== abilityId) return;
        this.error = describeFailure(error);
        this.status = "error";
        return;
      }
      if (this.abilityId !== abilityId) return;
    }
    this.spec = spec;
    this.form = this.#newForm(spec);
    this.status = "ready";
  }

  /** Back to the list; the run, if any, is still followed. */
  hide(): void {
    this.visible = false;
  }

  /** A run from the list of past runs (followed live if it is not over). */
  show(run: RunRecord): void {
    this.#follow(run);
  }

  /** The form again, for another run (the values typed before, secrets aside, are kept). */
  again(): void {
    this.progress?.destroy();
    this.progress = null;
    void this.history?.load();
  }

  destroy(): void {
    this.#reset();
  }

  #newForm(spec: AbilityRunSpec): RunFormState {
    return new RunFormState(this.#deps, spec, { onStarted: (run) => this.#follow(run) });
  }

  #follow(run: RunRecord): void {
    this.progress?.destroy();
    const progress = new RunProgressState(this.#deps, run, this.spec ?? undefined, { ...this.#options, onFinished: () => void this.history?.load() });
    this.progress = progress;
    progress.follow();
    void this.history?.load();
  }

  #reset(): void {
    this.progress?.destroy();
    this.progress = null;
    this.form = null;
    this.spec = null;
    this.history = null;
    this.error = null;
    this.status = "closed";
    this.abilityId = null;
  }
}

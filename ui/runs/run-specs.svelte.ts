import type { AbilityRunSpec } from "../../shared/execution/run-contract";
import { describeFailure } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";

/** What Skills knows of an ability's run-spec: whether it can be run, and if not, why. */
export type RunSpecEntry = { status: "loading" } | { status: "ready"; spec: AbilityRunSpec } | { status: "error"; message: string };

/** Abilities the panel offers to run: the ones a person taught or imported (the assistant's own are read-only). */
export const runnableSource = (source: string): boolean => source === "learned" || source === "imported" || source === "promoted";

/**
 * The run-specs of the abilities Skills lists (issue #21), read again whenever the availability
 * snapshot changes (an ability deactivated or quarantined stops being runnable).
 */
export class RunSpecsState {
  specs = $state.raw<ReadonlyMap<string, RunSpecEntry>>(new Map());
  readonly #deps: LearnDeps;
  #round = 0;

  constructor(deps: LearnDeps) {
    this.#deps = deps;
  }

  entry(abilityId: string): RunSpecEntry | undefined {
    return this.specs.get(abilityId);
  }

  /** Reads the run-spec of each of these abilities, a few at a time; older rounds' answers are dropped. */
  async sync(abilityIds: readonly string[], concurrency = 3): Promise<void> {
    const round = ++this.#round;
    const kept = new Map<string, RunSpecEntry>();
    for (const id of abilityIds) kept.set(id, this.specs.get(id) ?? { status: "loading" });
    this.specs = kept;
    const queue = [...abilityIds];
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        const entry = await this.#read(id);
        if (round !== this.#round) return;
        this.specs = new Map(this.specs).set(id, entry);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
  }

  async #read(abilityId: string): Promise<RunSpecEntry> {
    try {
      return { status: "ready", spec: await this.#deps.client.runSpec(abilityId) };
    } catch (error) {
      report(this.#deps, error);
      return { status: "error", message: describeFailure(error) };
    }
  }
}

import type { RunRecord } from "../../shared/execution/run-contract";
import { describeFailure } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";

/** Past runs of one ability, newest first as the agent lists them (GET /api/runs?ability_id=…). */
export class RunHistoryState {
  readonly abilityId: string;
  status = $state<"loading" | "ready" | "error">("loading");
  runs = $state.raw<RunRecord[]>([]);
  total = $state(0);
  error = $state<string | null>(null);
  readonly #deps: LearnDeps;
  #requests = 0;

  constructor(deps: LearnDeps, abilityId: string) {
    this.#deps = deps;
    this.abilityId = abilityId;
  }

  async load(): Promise<void> {
    const request = ++this.#requests;
    try {
      const answer = await this.#deps.client.listRuns(this.abilityId);
      if (request !== this.#requests) return;
      this.runs = answer.runs;
      this.total = answer.total;
      this.error = null;
      this.status = "ready";
    } catch (error) {
      report(this.#deps, error);
      if (request !== this.#requests) return;
      this.error = describeFailure(error);
      this.status = "error";
    }
  }
}

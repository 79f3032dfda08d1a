import type { ImportedSkillRecord } from "../../shared/skills/import";
import { isRouteMissing } from "../agent-link/transport/agent-failure";
import { describeFailure } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";

/** States an import leaves Pending Abilities in: accepted into Skills, or decided against. */
const SETTLED = new Set<ImportedSkillRecord["stage_state"]>(["installed_private", "approved", "rejected", "discarded", "expired"]);

/** Imported skills waiting for a decision (§0C.20), shown under Pending Abilities until accepted. */
export class PendingImportsState {
  items = $state.raw<ImportedSkillRecord[]>([]);
  error = $state<string | null>(null);
  readonly #deps: LearnDeps;

  constructor(deps: LearnDeps) {
    this.#deps = deps;
  }

  async load(): Promise<void> {
    try {
      const list = await this.#deps.client.listSkillImports(1, 100);
      this.items = list.items.filter((record) => !SETTLED.has(record.stage_state));
      this.error = null;
    } catch (error) {
      if (isRouteMissing(error)) return;
      report(this.#deps, error);
      this.error = describeFailure(error);
    }
  }
}

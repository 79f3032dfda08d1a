import { describeFailure } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";
import { groupPendingAbilities, type PendingGroup } from "./pending-abilities";

/** Pending Abilities (§0B.7): every session not yet accepted, grouped by its §0C.6 UI state. */
export class PendingAbilitiesState {
  groups = $state.raw<PendingGroup[]>([]);
  loading = $state(false);
  loaded = $state(false);
  error = $state<string | null>(null);
  readonly #deps: LearnDeps;

  constructor(deps: LearnDeps) {
    this.#deps = deps;
  }

  async load(): Promise<void> {
    this.loading = true;
    try {
      const [sessions, proposals] = await Promise.all([this.#deps.client.listSessions(1, 100), this.#deps.client.listProposals(1, 100)]);
      this.groups = groupPendingAbilities(sessions.sessions, proposals.proposals);
      this.loaded = true;
      this.error = null;
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
    } finally {
      this.loading = false;
    }
  }
}

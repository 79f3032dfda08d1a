import type { LearnHistoryResponse, LearnReceiptsResponse } from "../../shared/learning/route-contracts";
import { isRouteMissing } from "../agent-link/transport/agent-failure";
import { describeFailure } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";

/** History (§0B.8): prior sessions with their outcomes, and the learning receipts feed. */
export class LearnHistoryState {
  items = $state.raw<LearnHistoryResponse["items"]>([]);
  receipts = $state.raw<LearnReceiptsResponse["receipts"]>([]);
  receiptsTotal = $state(0);
  loading = $state(false);
  loaded = $state(false);
  /** §0C.28: without the history route the tab says "coming soon". */
  unavailable = $state(false);
  error = $state<string | null>(null);
  readonly #deps: LearnDeps;

  constructor(deps: LearnDeps) {
    this.#deps = deps;
  }

  async load(): Promise<void> {
    this.loading = true;
    try {
      const [history, receipts] = await Promise.all([this.#deps.client.history(1, 50), this.#deps.client.receipts(1, 50)]);
      this.items = history.items;
      this.receipts = receipts.receipts;
      this.receiptsTotal = receipts.total;
      this.loaded = true;
      this.error = null;
    } catch (error) {
      if (isRouteMissing(error)) {
        this.unavailable = true;
        return;
      }
      report(this.#deps, error);
      this.error = describeFailure(error);
    } finally {
      this.loading = false;
    }
  }
}

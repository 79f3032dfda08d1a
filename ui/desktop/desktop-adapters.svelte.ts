import type { ObservationAdapterKind, ObservationAdapterStatus } from "../../shared/learning/observed-actions/observation-adapter";
import { describeFailure } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";

/** The extension's own adapters; every other kind reports from a program on this computer (§0C.22). */
const BROWSER_KINDS: ReadonlySet<ObservationAdapterKind> = new Set(["browser_dom", "browser_snapshot"]);

/**
 * How to get a healthy adapter: the reference adapter that ships with the agent, run from the
 * agent's folder. The shell integration watches every command of a terminal (bash or zsh); the
 * CLI reports one command at a time.
 */
export const REFERENCE_ADAPTER_COMMANDS = {
  shell: "source agent/reference-adapter/shell-integration.sh",
  register: "npm run adapter -- --register",
  run: "npm run adapter -- <your command>",
} as const;

/** The desktop adapters the agent knows, healthy ones first; the browser extension is not listed. */
export function desktopAdapters(adapters: readonly ObservationAdapterStatus[]): ObservationAdapterStatus[] {
  return adapters
    .filter((adapter) => !BROWSER_KINDS.has(adapter.kind))
    .sort((a, b) => Number(b.healthy) - Number(a.healthy) || a.adapter_id.localeCompare(b.adapter_id));
}

/**
 * Which desktop adapters are healthy right now (`GET /api/observation/adapters`: an adapter is
 * healthy while its heartbeats keep coming), re-read while the set-up shows "This computer".
 */
export class DesktopAdaptersState {
  adapters = $state.raw<ObservationAdapterStatus[] | null>(null);
  error = $state<string | null>(null);
  readonly healthyCount = $derived(this.adapters?.filter((adapter) => adapter.healthy).length ?? 0);
  readonly #deps: LearnDeps;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(deps: LearnDeps) {
    this.#deps = deps;
  }

  async load(): Promise<void> {
    try {
      const { adapters } = await this.#deps.client.observationAdapters();
      this.adapters = desktopAdapters(adapters);
      this.error = null;
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
    }
  }

  watch(everyMs = 5000): void {
    void this.load();
    this.#timer ??= setInterval(() => void this.load(), everyMs);
  }

  unwatch(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

import { RunEventEnvelopeSchema, TERMINAL_RUN_STATES, type AbilityRunSpec, type RunRecord } from "../../shared/execution/run-contract";
import type { StandingGrantTerms } from "../../shared/execution/run-grants";
import type { CheckpointProgressRow } from "../review/checkpoints/checkpoint-progress";
import { EventStreamLink, type StreamMessage } from "../agent-link/event-stream-link.svelte";
import { describeFailure, failureCode } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";
import { readable, runCheckpointRows } from "./run-view";
import type { SseMessage } from "../agent-link/sse-parser";

export interface RunProgressOptions {
  /** The run is over (told once). */
  onFinished?: () => void;
  pollMs?: number;
  reconnectDelaysMs?: readonly number[];
}

function interpretRunMessage(message: SseMessage, data: unknown): StreamMessage<RunRecord> {
  if (message.event === "error") {
    const text = typeof data === "object" && data !== null && "message" in data && typeof data.message === "string" ? data.message : undefined;
    return { kind: "error", message: text ?? "The agent reported a problem with the live stream." };
  }
  const envelope = RunEventEnvelopeSchema.safeParse(data);
  return envelope.success ? { kind: "event", value: envelope.data.run } : { kind: "ignore" };
}

/**
 * One run as it happens (issue #21): followed over its SSE stream (every frame is the whole run),
 * polled while the stream is down; the person's answer to a confirmation, Stop, and, once it
 * failed, the screenshot of what was seen.
 */
export class RunProgressState {
  run: RunRecord;
  live = $state.raw<EventStreamLink<RunRecord> | null>(null);
  busy = $state<"confirm" | "decline" | "cancel" | null>(null);
  error = $state<string | null>(null);
  /** An object URL of the screenshot kept with the run, once loaded. */
  screenshotUrl = $state<string | null>(null);
  screenshotError = $state<string | null>(null);
  readonly spec: AbilityRunSpec | undefined;
  readonly #deps: LearnDeps;
  readonly #options: RunProgressOptions;
  #screenshotRequested = false;
  #destroyed = false;

  constructor(deps: LearnDeps, run: RunRecord, spec: AbilityRunSpec | undefined, options: RunProgressOptions = {}) {
    this.#deps = deps;
    this.run = $state.raw(run);
    this.spec = spec;
    this.#options = options;
  }

  get terminal(): boolean {
    return TERMINAL_RUN_STATES.has(this.run.state);
  }

  get rows(): CheckpointProgressRow[] {
    return runCheckpointRows(this.spec, this.run);
  }

  /** A goal, label or message of the agent's with the skill's `{{parameters}}` named by their labels. */
  readable(text: string): string {
    return readable(text, this.spec?.inputs ?? []);
  }

  /** Follows the run live until it is over; a run already over only loads what it left. */
  follow(): void {
    if (this.terminal) {
      void this.#whenOver();
      return;
    }
    const dispatchId = this.run.dispatch_id;
    const live = new EventStreamLink<RunRecord>({
      open: (init) => this.#deps.client.openRunEvents(dispatchId, init),
      interpret: interpretRunMessage,
      onEvent: (run) => this.#apply(run),
      refresh: () => this.refresh(),
      ...(this.#options.pollMs === undefined ? {} : { pollMs: this.#options.pollMs }),
      ...(this.#options.reconnectDelaysMs === undefined ? {} : { reconnectDelaysMs: this.#options.reconnectDelaysMs }),
    });
    this.live = live;
    live.start();
  }

  /** Re-reads the run; says whether it is over. Never throws. */
  async refresh(): Promise<{ terminal: boolean }> {
    try {
      const { run } = await this.#deps.client.run(this.run.dispatch_id);
      this.#apply(run);
    } catch (error) {
      report(this.#deps, error);
      if (failureCode(error) === "RUN_NOT_FOUND") return { terminal: true };
    }
    return { terminal: this.terminal };
  }

  /** The person's answer to the step waiting for it; with `alwaysAllow`, also allowed for good under those terms (issue #33). */
  async answer(decision: "confirm" | "decline", alwaysAllow?: StandingGrantTerms): Promise<void> {
    const pending = this.run.pending_confirmation;
    if (this.busy !== null || pending === undefined) return;
    this.busy = decision;
    this.error = null;
    try {
      const { run } = await this.#deps.client.confirmRun(this.run.dispatch_id, {
        confirmation_id: pending.confirmation_id,
        decision,
        ...(alwaysAllow === undefined ? {} : { always_allow: alwaysAllow }),
        schema_version: 1,
      });
      this.#apply(run);
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
    } finally {
      this.busy = null;
    }
  }

  /** Stop: the agent ends the run at once. */
  async cancel(): Promise<void> {
    if (this.busy === "cancel" || this.terminal) return;
    this.busy = "cancel";
    this.error = null;
    try {
      const { run } = await this.#deps.client.cancelRun(this.run.dispatch_id, "Stopped from the side panel.");
      this.#apply(run);
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
    } finally {
      this.busy = null;
    }
  }

  destroy(): void {
    this.#destroyed = true;
    this.live?.stop();
    if (this.screenshotUrl !== null) URL.revokeObjectURL(this.screenshotUrl);
    this.screenshotUrl = null;
  }

  #apply(run: RunRecord): void {
    if (this.#destroyed || run.dispatch_id !== this.run.dispatch_id) return;
    // A poll's answer may arrive after a newer stream frame: keep the later state.
    if (run.updated_at < this.run.updated_at) return;
    const wasOver = this.terminal;
    this.run = run;
    if (!this.terminal) return;
    if (!wasOver) this.#options.onFinished?.();
    void this.#whenOver();
  }

  async #whenOver(): Promise<void> {
    if (this.#screenshotRequested || this.run.failure?.page_seen?.screenshot_ref === undefined) return;
    this.#screenshotRequested = true;
    try {
      const blob = await this.#deps.client.runScreenshot(this.run.dispatch_id);
      if (!this.#destroyed) this.screenshotUrl = URL.createObjectURL(blob);
    } catch (error) {
      report(this.#deps, error);
      this.screenshotError = describeFailure(error);
    }
  }
}

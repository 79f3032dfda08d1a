import type { CoachingAnswerKind, CoachingState, CoachingTarget, CoachingTurn } from "../../../shared/learning/sessions/coaching";
import type { LearnSessionEventEnvelope } from "../../../shared/learning/read-models";
import { describeFailure } from "../../common/failure-text";
import { report, type LearnDeps } from "../../common/learn-deps";

/** "click 'Invoices' (link)": what the agent is about to do, as the panel and the page say it. */
export function aboutTo(target: Pick<CoachingTarget, "role" | "name">): string {
  return `click '${target.name}' (${target.role})`;
}

/** Each step with where it stands: its last turn's status, or waiting. */
export function stepProgress(state: CoachingState): Array<{ index: number; words: string; status: CoachingTurn["status"] | "waiting"; outcome?: string }> {
  return state.steps.map((step, index) => {
    const last = [...state.turns].reverse().find((turn) => turn.step_index === index);
    return { index, words: step.words, status: last?.status ?? "waiting", ...(last?.outcome === undefined ? {} : { outcome: last.outcome }) };
  });
}

/** The turn that waits for the person (an answer, or "I did it"), if any. */
export function openTurn(state: CoachingState | null): CoachingTurn | undefined {
  const last = state?.turns[state.turns.length - 1];
  return last !== undefined && (last.status === "awaiting_answer" || last.status === "user_showing") && state?.status === "turns" ? last : undefined;
}

export const STEP_STATUS_LABEL: Record<CoachingTurn["status"] | "waiting", string> = {
  waiting: "To do",
  proposing: "Looking for it…",
  awaiting_answer: "Waiting for you",
  acting: "Doing it…",
  user_showing: "Your turn",
  done: "Done by the assistant",
  shown: "Shown by you",
  skipped: "Skipped",
  failed: "Did not work",
};

/** Where the coaching turns hear of changes: the session's event stream (ActiveSessionState). */
export interface CoachingEventSource {
  subscribe(listener: (envelope: LearnSessionEventEnvelope) => void): () => void;
  /** Whether events arrive as they happen; while not, the turns are re-read more often. */
  readonly streaming: boolean;
}

export interface CoachingTurnsOptions {
  /** The safety net while the stream is up (an event lost in a reconnect): slow. */
  fallbackPollMs?: number;
  /** While the stream is down, nothing else says a turn changed. */
  offlinePollMs?: number;
}

/**
 * The Coaching Agent's turns in the side panel (issue #16): reads where the coaching is while the
 * session records, and sends the person's answers. It follows the session's `coaching.turn` events
 * (each one a re-read of `GET …/coaching`), with a slow poll as the fallback, only while mounted.
 */
export class CoachingTurnsState {
  state = $state<CoachingState | null>(null);
  busy = $state(false);
  error = $state<string | null>(null);
  readonly #deps: LearnDeps;
  readonly #sessionId: string;
  readonly #fallbackPollMs: number;
  readonly #offlinePollMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #unsubscribe: (() => void) | undefined;
  #source: CoachingEventSource | undefined;
  #watching = false;
  /** A re-read is under way; `#again` asks for one more after it (an event arrived meanwhile). */
  #reading: Promise<void> | undefined;
  #again = false;

  constructor(deps: LearnDeps, sessionId: string, options: CoachingTurnsOptions = {}) {
    this.#deps = deps;
    this.#sessionId = sessionId;
    this.#fallbackPollMs = options.fallbackPollMs ?? 5_000;
    this.#offlinePollMs = options.offlinePollMs ?? 1_000;
  }

  /** Reads the turns now, then again on each `coaching.turn` of `source`, and slowly as a fallback. */
  watch(source?: CoachingEventSource): void {
    if (this.#watching) return;
    this.#watching = true;
    this.#source = source;
    this.#unsubscribe = source?.subscribe((envelope) => {
      if (envelope.event === "coaching.turn" && envelope.data.session_id === this.#sessionId) void this.refresh();
    });
    void this.#tick();
  }

  unwatch(): void {
    this.#watching = false;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#source = undefined;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** One re-read at a time; events that arrive during it cause exactly one more. */
  refresh(): Promise<void> {
    if (this.#reading !== undefined) {
      this.#again = true;
      return this.#reading;
    }
    this.#reading = (async () => {
      do {
        this.#again = false;
        try {
          this.#apply(await this.#deps.client.coachingState(this.#sessionId));
        } catch (error) {
          report(this.#deps, error);
        }
      } while (this.#again);
    })().finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  /** An answer read before a later change (a re-read racing an answer's reply) never overwrites it. */
  #apply(next: CoachingState): void {
    if (this.state !== null && next.updated_at < this.state.updated_at) return;
    this.state = next;
  }

  async #tick(): Promise<void> {
    await this.refresh();
    if (!this.#watching) return;
    const pause = this.#source?.streaming === true ? this.#fallbackPollMs : this.#offlinePollMs;
    this.#timer = setTimeout(() => void this.#tick(), pause);
  }

  answer(turn: number, answer: CoachingAnswerKind): Promise<void> {
    return this.#send(() => this.#deps.client.answerCoaching(this.#sessionId, { turn, answer }));
  }

  shown(turn: number): Promise<void> {
    return this.#send(() => this.#deps.client.coachingShown(this.#sessionId, { turn }));
  }

  async #send(request: () => Promise<CoachingState>): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.error = null;
    try {
      this.#apply(await request());
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
    } finally {
      this.busy = false;
    }
  }
}

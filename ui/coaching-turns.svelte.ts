import type { CoachingAnswerKind, CoachingState, CoachingTarget, CoachingTurn } from "../shared/learning/coaching";
import { describeFailure } from "./failure-text";
import { report, type LearnDeps } from "./learn-deps";

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

/**
 * The Coaching Agent's turns in the side panel (issue #16): reads where the coaching is while the
 * session records, and sends the person's answers. Polls, at most twice a second, only while mounted.
 */
export class CoachingTurnsState {
  state = $state<CoachingState | null>(null);
  busy = $state(false);
  error = $state<string | null>(null);
  readonly #deps: LearnDeps;
  readonly #sessionId: string;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #watching = false;

  constructor(deps: LearnDeps, sessionId: string) {
    this.#deps = deps;
    this.#sessionId = sessionId;
  }

  watch(): void {
    if (this.#watching) return;
    this.#watching = true;
    void this.#tick();
  }

  unwatch(): void {
    this.#watching = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async refresh(): Promise<void> {
    try {
      this.state = await this.#deps.client.coachingState(this.#sessionId);
    } catch (error) {
      report(this.#deps, error);
    }
  }

  async #tick(): Promise<void> {
    await this.refresh();
    if (this.#watching) this.#timer = setTimeout(() => void this.#tick(), 500);
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
      this.state = await request();
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
    } finally {
      this.busy = false;
    }
  }
}

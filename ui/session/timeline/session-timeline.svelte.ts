import { isRouteMissing } from "../../agent-link/transport/agent-failure";
import { describeFailure } from "../../common/failure-text";
import { report, type LearnDeps } from "../../common/learn-deps";
import { timelineStep, type TimelineStep } from "./timeline";

/**
 * The live timeline of one session: readable steps from `GET …/observations` (masked in the page,
 * and only names and kinds are kept here — never a value), the user's exclusions.
 */
export class SessionTimelineState {
  steps = $state.raw<TimelineStep[]>([]);
  total = $state(0);
  availability = $state<"loading" | "ready" | "unavailable">("loading");
  error = $state<string | null>(null);
  busy = $state(false);
  readonly #deps: LearnDeps;
  readonly #sessionId: string;
  #excluded = new Set<string>();
  #last: string | undefined;
  #loading: Promise<void> | undefined;

  constructor(deps: LearnDeps, sessionId: string) {
    this.#deps = deps;
    this.#sessionId = sessionId;
  }

  /** Fetches what arrived since the last call; concurrent calls share one request. */
  refresh(): Promise<void> {
    this.#loading ??= this.#fetch().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  async #fetch(): Promise<void> {
    if (this.availability === "unavailable") return;
    try {
      const answer = await this.#deps.client.observations(this.#sessionId, this.#last);
      this.#excluded = new Set(answer.excluded_event_ids);
      const known = this.steps.map((step) => ({ ...step, excluded: this.#excluded.has(step.event_id) }));
      const seen = new Set(known.map((step) => step.event_id));
      // Only the readable step is kept: the event itself (and anything it carries) is dropped here.
      const fresh = answer.events.filter((event) => !seen.has(event.event_id)).map((event) => timelineStep(event, this.#excluded));
      // In the order things happened: a terminal reports each command after it ends, in the
      // background, so a quick command can arrive before the slow one typed first.
      this.steps = [...known, ...fresh].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
      this.#last = answer.events.at(-1)?.event_id ?? this.#last;
      this.total = answer.total;
      this.availability = "ready";
      this.error = null;
    } catch (error) {
      if (isRouteMissing(error)) {
        this.availability = "unavailable";
        return;
      }
      report(this.#deps, error);
      this.error = describeFailure(error);
    }
  }

  /** Leaves steps out of the proposal, or puts them back. */
  async setExcluded(eventIds: string[], excluded: boolean): Promise<void> {
    this.busy = true;
    try {
      const answer = await this.#deps.client.excludeEvents(this.#sessionId, { event_ids: eventIds, excluded });
      this.#excluded = new Set(answer.excluded_event_ids);
      this.steps = this.steps.map((step) => ({ ...step, excluded: this.#excluded.has(step.event_id) }));
      this.error = null;
    } catch (error) {
      report(this.#deps, error);
      this.error = isRouteMissing(error) ? "Excluding steps is not available yet on this agent." : describeFailure(error);
    } finally {
      this.busy = false;
    }
  }
}

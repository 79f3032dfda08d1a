import { isTerminalLearnSessionState, type LearnSession } from "../../../shared/learning/sessions/learn-session";
import type { ObservationScopeRuntime } from "../../../shared/learning/sessions/observation-scope-runtime";
import type { LearnSessionEventEnvelope } from "../../../shared/learning/read-models";
import { failureCode, describeFailure } from "../../common/failure-text";
import { report, type LearnDeps } from "../../common/learn-deps";
import { CAPTURE_STATES, IN_FLIGHT_STATES, type SessionControl } from "./session-control-availability";
import { SessionLiveLink } from "./session-live-link.svelte";
import { SessionTimelineState } from "../timeline/session-timeline.svelte";

export interface ActiveSessionOptions {
  /** How often the timeline and scope are refreshed while events may arrive (default 2 s). */
  captureTickMs?: number;
  /** Passed to the live link (tests shorten them). */
  pollMs?: number;
  reconnectDelaysMs?: readonly number[];
  /** A proposal became ready for review (after generate or answers): the drawer may open. */
  onProposalReady?: (proposalId: string) => void;
}

export type ActiveBusy = SessionControl | "trim" | null;

/**
 * The session under Active Capability Learning: its state, controls, observation scope, live link
 * and timeline. One session at a time, as the agent allows (§0C.1B).
 */
export class ActiveSessionState {
  session = $state.raw<LearnSession | null>(null);
  scope = $state.raw<ObservationScopeRuntime | null>(null);
  loading = $state(false);
  busy = $state<ActiveBusy>(null);
  error = $state<string | null>(null);
  /** Something the person should know that is not an error of the agent (site access, extension link). */
  notice = $state<string | null>(null);
  capturedCount = $state<number | null>(null);
  live = $state.raw<SessionLiveLink | null>(null);
  timeline = $state.raw<SessionTimelineState | null>(null);
  readonly #deps: LearnDeps;
  readonly #options: ActiveSessionOptions;
  #tick: ReturnType<typeof setInterval> | undefined;
  readonly #listeners = new Set<(envelope: LearnSessionEventEnvelope) => void>();

  constructor(deps: LearnDeps, options: ActiveSessionOptions = {}) {
    this.#deps = deps;
    this.#options = options;
  }

  /** Finds the session in flight, if any (the newest one). */
  async loadCurrent(): Promise<void> {
    this.loading = true;
    try {
      const { sessions } = await this.#deps.client.listSessions(1, 50);
      const current = sessions.find((session) => IN_FLIGHT_STATES.has(session.state));
      if (current === undefined) {
        // Nothing in flight: a session on screen stays, in its final state, until another starts.
        if (this.session !== null) await this.refresh();
        return;
      }
      if (current.learn_session_id !== this.session?.learn_session_id) this.adopt(current);
      else this.#set(current);
      this.error = null;
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
    } finally {
      this.loading = false;
    }
  }

  /** Shows this session, with its live link and timeline. */
  adopt(session: LearnSession): void {
    this.#detach();
    this.session = session;
    this.capturedCount = null;
    this.notice = null;
    this.error = null;
    const timeline = new SessionTimelineState(this.#deps, session.learn_session_id);
    this.timeline = timeline;
    void timeline.refresh();
    void this.#loadScope();
    if (!isTerminalLearnSessionState(session.state)) {
      const live = new SessionLiveLink({
        client: this.#deps.client,
        sessionId: session.learn_session_id,
        onEvent: (envelope) => this.#onEvent(envelope),
        refresh: () => this.refresh(),
        ...(this.#options.pollMs === undefined ? {} : { pollMs: this.#options.pollMs }),
        ...(this.#options.reconnectDelaysMs === undefined ? {} : { reconnectDelaysMs: this.#options.reconnectDelaysMs }),
      });
      this.live = live;
      live.start();
    }
    this.#syncTicker();
  }

  /** Re-reads the session (and scope); says whether it has ended. Never throws. */
  async refresh(): Promise<{ terminal: boolean }> {
    const current = this.session;
    if (current === null) return { terminal: true };
    try {
      const session = await this.#deps.client.sessionDetail(current.learn_session_id);
      if (this.session?.learn_session_id !== session.learn_session_id) return { terminal: false };
      this.#set(session);
      void this.#loadScope();
      return { terminal: isTerminalLearnSessionState(session.state) };
    } catch (error) {
      report(this.#deps, error);
      if (failureCode(error) === "LEARN_SESSION_NOT_FOUND") {
        this.#detach();
        return { terminal: true };
      }
      return { terminal: false };
    }
  }

  #set(session: LearnSession): void {
    const before = this.session;
    // Reads of the session overlap (the list on opening a tab, the detail on each stream event, a
    // control's own answer); one sent before a change can be answered after it. The agent stamps
    // every change: an older record of the same session never replaces a newer one.
    if (before?.learn_session_id === session.learn_session_id && Date.parse(session.updated_at) < Date.parse(before.updated_at)) return;
    this.session = session;
    this.#syncTicker();
    if (before?.state !== session.state && session.state === "ready_for_review" && session.proposal_id !== undefined) {
      this.#options.onProposalReady?.(session.proposal_id);
    }
  }

  /**
   * Hears every event of the shown session's stream (a part of the page that follows its own
   * record, as the coaching turns do); returns the way to stop hearing them.
   */
  subscribe(listener: (envelope: LearnSessionEventEnvelope) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Whether the shown session's events arrive as they happen (its stream is up). */
  get streaming(): boolean {
    return this.live?.status === "live";
  }

  #onEvent(envelope: LearnSessionEventEnvelope): void {
    for (const listener of this.#listeners) {
      try {
        listener(envelope);
      } catch (error) {
        report(this.#deps, error);
      }
    }
    // Lifecycle events say that something changed; the detail route says what it is now.
    void this.refresh();
    void this.timeline?.refresh();
    if (envelope.event === "learn.capture.stopped" && typeof envelope.data.payload.captured_event_count === "number") {
      this.capturedCount = envelope.data.payload.captured_event_count;
    }
  }

  async #loadScope(): Promise<void> {
    const session = this.session;
    if (session === null) return;
    try {
      const scope = await this.#deps.client.observationScope(session.learn_session_id);
      if (this.session?.learn_session_id === scope.learn_session_id) this.scope = scope;
    } catch (error) {
      // The scope is extra detail; the session itself still shows. Agent-level failures still report.
      report(this.#deps, error);
    }
  }

  /** While events may arrive, the timeline and off-site count are re-read every couple of seconds. */
  #syncTicker(): void {
    const capturing = this.session !== null && CAPTURE_STATES.has(this.session.state);
    if (capturing && this.#tick === undefined) {
      this.#tick = setInterval(() => {
        void this.timeline?.refresh();
        void this.#loadScope();
      }, this.#options.captureTickMs ?? 2000);
    } else if (!capturing && this.#tick !== undefined) {
      clearInterval(this.#tick);
      this.#tick = undefined;
      // One last read: the events sent just before the stop.
      void this.timeline?.refresh();
    }
  }

  async #run(control: NonNullable<ActiveBusy>, work: (sessionId: string) => Promise<LearnSession | void>): Promise<void> {
    const session = this.session;
    if (session === null || this.busy !== null) return;
    this.busy = control;
    this.error = null;
    try {
      const next = await work(session.learn_session_id);
      if (next !== undefined && this.session?.learn_session_id === next.learn_session_id) this.#set(next);
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
      if (failureCode(error) === "CAPTURE_ALREADY_STOPPED" || failureCode(error) === "INVALID_LEARN_STATE_TRANSITION") void this.refresh();
    } finally {
      this.busy = null;
    }
  }

  /**
   * Start (issue #4 order): site access inside the click, then the extension's link to the agent,
   * then `POST …/start`. Call straight from the click handler; `access` is given when the set-up
   * form already asked Chrome during its own click.
   */
  start(access?: Promise<boolean>): Promise<void> {
    const session = this.session;
    if (session === null) return Promise.resolve();
    const sites = session.observation_mode === "none" ? [] : session.target_app_whitelist;
    const granted = access ?? this.#deps.browser.requestSiteAccess(sites);
    return this.#run("start", async (id) => {
      this.notice = null;
      if (!(await granted)) {
        this.notice = "Chrome did not grant access to the sites, so nothing can be watched. Press Start again and allow access, or change the sites.";
        return;
      }
      if (sites.length > 0) {
        const link = await this.#deps.browser.ensureConnected(10_000);
        if (link !== "connected") {
          this.notice =
            link === "no_background"
              ? "The extension's background did not answer; the agent may refuse to start watching."
              : `The extension is not connected to the agent (${link.replace("_", " ")}); the agent may refuse to start watching.`;
        }
      }
      const started = await this.#deps.client.startSession(id);
      if (!started.observation_active && sites.length > 0) {
        this.notice = "The session started, but no observation adapter is watching the sites.";
      }
      return started.session;
    });
  }

  pause = () => this.#run("pause", async (id) => (await this.#deps.client.pauseSession(id)).session);
  resume = () => this.#run("resume", async (id) => (await this.#deps.client.resumeSession(id)).session);
  stop = () =>
    this.#run("stop", async (id) => {
      const stopped = await this.#deps.client.stopSession(id);
      this.capturedCount = stopped.captured_event_count;
      return stopped.session;
    });
  cancel = (reason?: string) => this.#run("cancel", async (id) => (await this.#deps.client.cancelSession(id, reason)).session);
  markStep = (label: string) =>
    this.#run("mark_step", async (id) => (await this.#deps.client.markStep(id, { step_label: label.trim().slice(0, 240), step_kind_hint: "action" })).session);
  markGoal = (goal: string) =>
    this.#run("mark_goal", async (id) => (await this.#deps.client.markGoal(id, { goal_description: goal.trim().slice(0, 400) })).session);
  trim = (kind: "trim_start" | "trim_end", eventId: string) =>
    this.#run("trim", async (id) => (await this.#deps.client.trim(id, { trim_kind: kind, to_event_id: eventId })).session);
  generateProposal = () =>
    this.#run("generate_proposal", async (id) => {
      const generated = await this.#deps.client.generateProposal(id);
      return generated.session;
    });

  /** After the questions were answered: the session moved on. */
  async afterAnswers(): Promise<void> {
    await this.refresh();
  }

  #detach(): void {
    this.live?.stop();
    this.live = null;
    this.timeline = null;
    this.session = null;
    this.scope = null;
    if (this.#tick !== undefined) clearInterval(this.#tick);
    this.#tick = undefined;
  }

  destroy(): void {
    this.#detach();
  }
}

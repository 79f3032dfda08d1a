import type { EventStreamInit } from "./transport/agent-transport";
import { AgentRequestError } from "./transport/agent-failure";
import { createSseParser, type SseMessage } from "./sse-parser";

export type LiveLinkStatus = "connecting" | "live" | "degraded" | "ended" | "stopped";

/** What one SSE message means to its link: an event to hand on, an `error` event to show, or nothing. */
export type StreamMessage<T> = { kind: "event"; value: T } | { kind: "error"; message: string } | { kind: "ignore" };

export interface EventStreamLinkDeps<T> {
  /** Opens the stream (resuming after `lastEventId`); the agent's failure rejects. */
  open(init: EventStreamInit): Promise<ReadableStream<Uint8Array>>;
  /** Reads one message (its data already parsed as JSON) against the stream's contract. */
  interpret(message: SseMessage, data: unknown): StreamMessage<T>;
  /** A stream event arrived (after parsing). */
  onEvent(value: T): void;
  /**
   * Refreshes the resource from its read route and says whether it is terminal. Called every
   * `pollMs` while the stream is down (§0C.28 fallback) and once when the stream ends.
   */
  refresh(): Promise<{ terminal: boolean }>;
  pollMs?: number;
  /** Waits before each reconnect attempt, then the last one repeats. */
  reconnectDelaysMs?: readonly number[];
}

/** What the live-updates banner shows of a link. */
export interface LiveLinkView {
  readonly status: LiveLinkStatus;
  readonly degradedReason: string | null;
  readonly streamError: string | null;
}

/**
 * The live link of one resource the agent streams (a session, §0C.16C/E; a run, issue #21): the
 * SSE stream read with fetch (bearer header), resumed with `Last-Event-ID` when it drops; while it
 * is down the resource is polled every 5 s and the panel says "real-time updates unavailable"; an
 * `error` event is kept for a visible banner. Ends when the resource is terminal (the agent closes
 * the stream then).
 */
export class EventStreamLink<T> implements LiveLinkView {
  status = $state<LiveLinkStatus>("connecting");
  /** Why real-time updates are unavailable right now (null while live). */
  degradedReason = $state<string | null>(null);
  /** The last `error` event's message, shown as a banner until the stream is healthy again. */
  streamError = $state<string | null>(null);
  readonly #deps: EventStreamLinkDeps<T>;
  #abort: AbortController | undefined;
  #poll: ReturnType<typeof setInterval> | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #attempt = 0;
  #lastEventId: string | undefined;
  #stopped = false;

  constructor(deps: EventStreamLinkDeps<T>) {
    this.#deps = deps;
  }

  get lastEventId(): string | undefined {
    return this.#lastEventId;
  }

  start(): void {
    this.#stopped = false;
    void this.#connect();
  }

  stop(): void {
    this.#stopped = true;
    this.status = "stopped";
    this.#abort?.abort();
    this.#stopPolling();
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    this.#retry = undefined;
  }

  async #connect(): Promise<void> {
    if (this.#stopped) return;
    const abort = new AbortController();
    this.#abort = abort;
    if (this.status !== "degraded") this.status = "connecting";
    let body: ReadableStream<Uint8Array>;
    try {
      body = await this.#deps.open({ ...(this.#lastEventId === undefined ? {} : { lastEventId: this.#lastEventId }), signal: abort.signal });
    } catch (error) {
      if (this.#stopped) return;
      const message = error instanceof AgentRequestError ? error.message : "the stream could not be opened";
      this.#degrade(`the live stream could not be opened (${message})`);
      return;
    }
    this.#attempt = 0;
    this.status = "live";
    this.degradedReason = null;
    this.streamError = null;
    this.#stopPolling();
    const ended = await this.#read(body);
    if (this.#stopped) return;
    if (ended === "aborted") return;
    // The agent closes the stream once the resource is terminal; otherwise it dropped.
    const { terminal } = await this.#deps.refresh().catch(() => ({ terminal: false }));
    if (terminal) {
      this.#finish();
      return;
    }
    this.#degrade(ended === "error_event" ? "the agent reported a stream error" : "the live stream dropped");
  }

  async #read(body: ReadableStream<Uint8Array>): Promise<"closed" | "aborted" | "error_event"> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let sawError = false;
    const parser = createSseParser((message) => {
      if (message.id !== undefined) this.#lastEventId = message.id;
      let data: unknown;
      try {
        data = JSON.parse(message.data);
      } catch {
        return;
      }
      const read = this.#deps.interpret(message, data);
      switch (read.kind) {
        case "error":
          sawError = true;
          this.streamError = read.message.slice(0, 240);
          return;
        case "event":
          this.#deps.onEvent(read.value);
          return;
        case "ignore":
          return;
      }
    });
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.push(decoder.decode(value, { stream: true }));
      }
    } catch {
      if (this.#abort?.signal.aborted === true) return "aborted";
      // A network drop mid-stream is a drop like any other.
    }
    return sawError ? "error_event" : "closed";
  }

  #degrade(reason: string): void {
    if (this.#stopped) return;
    this.status = "degraded";
    this.degradedReason = reason;
    this.#startPolling();
    const delays = this.#deps.reconnectDelaysMs ?? [1000, 2000, 5000, 10_000];
    const delay = delays[Math.min(this.#attempt, delays.length - 1)] ?? 10_000;
    this.#attempt += 1;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.#connect();
    }, delay);
  }

  #startPolling(): void {
    if (this.#poll !== undefined) return;
    this.#poll = setInterval(() => {
      void this.#deps
        .refresh()
        .then(({ terminal }) => {
          if (terminal) this.#finish();
        })
        .catch(() => undefined);
    }, this.#deps.pollMs ?? 5000);
  }

  #stopPolling(): void {
    if (this.#poll !== undefined) clearInterval(this.#poll);
    this.#poll = undefined;
  }

  #finish(): void {
    this.#stopped = true;
    this.#abort?.abort();
    this.#stopPolling();
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    this.status = "ended";
    this.degradedReason = null;
  }
}

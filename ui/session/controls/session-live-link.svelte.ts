import { LearnSessionEventEnvelopeSchema, type LearnSessionEventEnvelope } from "../../../shared/learning/read-models";
import type { AgentClient } from "../../agent-link/agent-client";
import { EventStreamLink, type StreamMessage } from "../../agent-link/event-stream-link.svelte";
import type { SseMessage } from "../../agent-link/sse-parser";

export type { LiveLinkStatus } from "../../agent-link/event-stream-link.svelte";

export interface SessionLiveLinkDeps {
  client: AgentClient;
  sessionId: string;
  /** A stream event arrived (after parsing). */
  onEvent(envelope: LearnSessionEventEnvelope): void;
  /**
   * Refreshes the session from `GET …/detail` and says whether it is terminal. Called every
   * `pollMs` while the stream is down (§0C.28 fallback) and once when the stream ends.
   */
  refresh(): Promise<{ terminal: boolean }>;
  pollMs?: number;
  /** Waits before each reconnect attempt, then the last one repeats. */
  reconnectDelaysMs?: readonly number[];
}

/** One session-stream message: an envelope, or the agent's `error` event with its message. */
function interpretSessionMessage(message: SseMessage, data: unknown): StreamMessage<LearnSessionEventEnvelope> {
  const envelope = LearnSessionEventEnvelopeSchema.safeParse(data);
  if (message.event === "error") {
    const payload = envelope.success ? envelope.data.data.payload : {};
    return { kind: "error", message: typeof payload.message === "string" ? payload.message : "The agent reported a problem with the live stream." };
  }
  return envelope.success ? { kind: "event", value: envelope.data } : { kind: "ignore" };
}

/** The live link of one session (§0C.16C/E): see {@link EventStreamLink}. */
export class SessionLiveLink extends EventStreamLink<LearnSessionEventEnvelope> {
  constructor(deps: SessionLiveLinkDeps) {
    const { client, sessionId, ...rest } = deps;
    super({ ...rest, open: (init) => client.openSessionEvents(sessionId, init), interpret: interpretSessionMessage });
  }
}

import { randomUUID } from "node:crypto";
import { WebSocket } from "ws";
import { AgentFrameSchema, type ObservationBatchAck } from "../../../shared/observation/capture-protocol";
import { clickEvent } from "./api-fixture";

/** What a sender learnt before the agent died: ids it may drop from its outbox, and every id it sent. */
export interface StreamResult {
  acknowledged: string[];
  sent: string[];
  batches: number;
  /** Error envelopes the agent answered a batch with (it should have none while healthy). */
  errors: string[];
}

const BATCH_SIZE = 10;
/** A pause between batches, as a page with a person in front of it produces them; keeps a drill's logs small. */
const PAUSE_MS = 5;
const pause = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS));

/** Events the agent said are durable (accepted now, or stored by an earlier delivery). */
const durable = (ack: ObservationBatchAck) => [...ack.accepted, ...ack.duplicates];

/**
 * Sends batches until the agent goes away, as the extension's outbox would: one batch at a time,
 * and every third batch re-sends the previous one, as a sender does when an ack was lost.
 */
function nextBatch(sessionId: string, previous: Array<Record<string, unknown>>, index: number): Array<Record<string, unknown>> {
  if (index % 3 === 2 && previous.length > 0) return previous;
  return Array.from({ length: BATCH_SIZE }, (_, offset) => clickEvent(sessionId, `Row ${index}-${offset}`));
}

/** The extension's way in: the WebSocket, hello with the token, then batches and their acks. */
export function streamOverSocket(baseUrl: string, token: string, sessionId: string): Promise<StreamResult> {
  const result: StreamResult = { acknowledged: [], sent: [], batches: 0, errors: [] };
  return new Promise((resolve) => {
    const socket = new WebSocket(`${baseUrl.replace("http", "ws")}/api/observations/stream`);
    let previous: Array<Record<string, unknown>> = [];
    let pending: string | undefined;
    const send = () => {
      previous = nextBatch(sessionId, previous, result.batches);
      result.batches += 1;
      pending = randomUUID();
      for (const event of previous) result.sent.push(event.event_id as string);
      socket.send(JSON.stringify({ type: "batch", batch: { batch_id: pending, events: previous, snapshots: [], schema_version: 1 } }));
    };
    socket.on("open", () =>
      socket.send(JSON.stringify({ type: "hello", token, adapter_id: "drill-extension", adapter_kinds: ["browser_dom"], schema_version: 1 })),
    );
    socket.on("message", (data) => {
      const frame = AgentFrameSchema.parse(JSON.parse(data.toString()));
      if (frame.type === "welcome") send();
      if (frame.type === "ack" && frame.ack.batch_id === pending) {
        result.acknowledged.push(...durable(frame.ack));
        void pause().then(() => {
          if (socket.readyState === socket.OPEN) send();
        });
      }
      if (frame.type === "error") {
        result.errors.push(JSON.stringify(frame.envelope));
        socket.close();
      }
    });
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(result));
  });
}

/** A desktop adapter's way in: `POST /api/observations/events`, one batch after another. */
export async function streamOverHttp(baseUrl: string, token: string, sessionId: string): Promise<StreamResult> {
  const result: StreamResult = { acknowledged: [], sent: [], batches: 0, errors: [] };
  let previous: Array<Record<string, unknown>> = [];
  for (;;) {
    previous = nextBatch(sessionId, previous, result.batches);
    result.batches += 1;
    for (const event of previous) result.sent.push(event.event_id as string);
    try {
      const response = await fetch(`${baseUrl}/api/observations/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ batch_id: randomUUID(), events: previous, snapshots: [], schema_version: 1 }),
      });
      if (response.status !== 200) {
        result.errors.push(`${response.status} ${await response.text()}`);
        return result;
      }
      result.acknowledged.push(...durable((await response.json()) as ObservationBatchAck));
      await pause();
    } catch (error) {
      // The agent was killed mid-request: nothing of this batch counts as acknowledged.
      if (error instanceof TypeError) return result;
      throw error;
    }
  }
}

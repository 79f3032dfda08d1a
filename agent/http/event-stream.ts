import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/**
 * One Server-Sent Events response (the session stream §0C.16C and the run stream, issue #21):
 * headers sent at once, frames written no faster than the client reads them (a write the socket
 * cannot take yet pauses the queue until `drain`), a `:keepalive` comment while idle, closed when
 * the client goes, after a last frame, or when the agent closes.
 */
export interface EventStream {
  /** Queues one frame (`id:`/`event:`/`data:` text); `last` ends the stream once it is written. */
  send(frame: string, last?: boolean): void;
  /** Ends the stream once every queued frame is written (a stream over whose replay is all there is). */
  endWhenDrained(): void;
  /** A `:keepalive` comment this often while the stream is open. */
  keepAlive(ms: number): void;
  /** Runs when the stream ends, however it ends (at once if it has ended already). */
  onEnd(listener: () => void): void;
  readonly closed: boolean;
}

/** The streams a plugin has open, all ended when the agent closes. */
export function trackEventStreams(app: FastifyInstance): Set<() => void> {
  const open = new Set<() => void>();
  app.addHook("preClose", async () => {
    for (const end of open) end();
  });
  return open;
}

export function openEventStream(request: FastifyRequest, reply: FastifyReply, open: Set<() => void>): EventStream {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-store",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  // Send the headers now: a client reconnecting with nothing to replay must not wait for the next event.
  raw.flushHeaders();
  let closed = false;
  let waiting = false;
  let endWhenDrained = false;
  let keepalive: NodeJS.Timeout | undefined;
  const listeners: Array<() => void> = [];
  const queue: Array<{ frame: string; last: boolean }> = [];
  const end = () => {
    if (closed) return;
    closed = true;
    if (keepalive !== undefined) clearInterval(keepalive);
    open.delete(end);
    for (const listener of listeners) listener();
    raw.end();
  };
  open.add(end);
  request.raw.on("close", end);
  const pump = () => {
    while (!closed && !waiting && queue.length > 0) {
      const { frame, last } = queue.shift() as { frame: string; last: boolean };
      const flushed = raw.write(frame);
      if (last) {
        end();
        return;
      }
      if (!flushed) {
        waiting = true;
        raw.once("drain", () => {
          waiting = false;
          pump();
        });
      }
    }
    if (!closed && !waiting && queue.length === 0 && endWhenDrained) end();
  };
  return {
    send(frame, last = false) {
      if (closed) return;
      queue.push({ frame, last });
      pump();
    },
    endWhenDrained() {
      endWhenDrained = true;
      pump();
    },
    keepAlive(ms) {
      if (closed) return;
      keepalive = setInterval(() => {
        if (!closed && !waiting) raw.write(":keepalive\n\n");
      }, ms);
    },
    onEnd(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
    get closed() {
      return closed;
    },
  };
}

/**
 * One Server-Sent Events message as the WHATWG "event stream interpretation" defines it.
 * `id` is the last id seen on the stream so far (ids persist across messages without one).
 */
export interface SseMessage {
  event: string;
  data: string;
  id: string | undefined;
}

/**
 * A small incremental SSE parser. The panel cannot use EventSource (it must send the bearer
 * header), and the few lines below are the whole of the format we need: `event`, `data`, `id`,
 * comments (keepalives) and blank-line dispatch, across arbitrary chunk boundaries and CRLF.
 * (No dependency was added for it: the package manifest is shared with the other engineers.)
 */
export function createSseParser(onMessage: (message: SseMessage) => void) {
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let lastId: string | undefined;

  const dispatch = () => {
    if (data.length > 0) onMessage({ event: event === "" ? "message" : event, data: data.join("\n"), id: lastId });
    event = "";
    data = [];
  };

  const line = (text: string) => {
    if (text === "") return dispatch();
    if (text.startsWith(":")) return; // comment, e.g. ":keepalive"
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "event":
        event = value;
        return;
      case "data":
        data.push(value);
        return;
      case "id":
        if (!value.includes("\u0000")) lastId = value;
        return;
      default:
        return; // "retry" and unknown fields: nothing for us
    }
  };

  return {
    push(chunk: string): void {
      buffer += chunk;
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        if (match === null) return;
        // A lone CR at the very end may be the first half of a CRLF still in flight.
        if (match[0] === "\r" && match.index === buffer.length - 1) return;
        line(buffer.slice(0, match.index));
        buffer = buffer.slice(match.index + match[0].length);
      }
    },
    /** The id to resume from (`Last-Event-ID`). */
    lastEventId: () => lastId,
  };
}

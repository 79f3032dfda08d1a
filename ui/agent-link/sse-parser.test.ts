import { describe, expect, it } from "vitest";
import { createSseParser, type SseMessage } from "./sse-parser";

describe("the SSE parser", () => {
  it("parses events across chunk boundaries, ignores keepalive comments and keeps the last id", () => {
    const messages: SseMessage[] = [];
    const parser = createSseParser((message) => messages.push(message));
    const stream = 'id: 1\nevent: learn.capture.started\ndata: {"a":1}\n\n:keepalive\n\nid: 2\r\nevent: error\r\ndata: {"b":\r\ndata: 2}\r\n\r\n';
    for (const character of stream) parser.push(character);
    expect(messages).toEqual([
      { event: "learn.capture.started", data: '{"a":1}', id: "1" },
      { event: "error", data: '{"b":\n2}', id: "2" },
    ]);
    expect(parser.lastEventId()).toBe("2");
  });

  it("dispatches nothing for a message without data, and names an unnamed one 'message'", () => {
    const messages: SseMessage[] = [];
    const parser = createSseParser((message) => messages.push(message));
    parser.push("event: x\n\ndata:plain\n\n");
    expect(messages).toEqual([{ event: "message", data: "plain", id: undefined }]);
  });
});

import { connect } from "node:net";

export interface RawRequest {
  method: string;
  /** Sent exactly as given: the test decides what is encoded and what is not. */
  target: string;
  /** Header lines in order; a header that repeats is given twice. Host is never added for you. */
  headers: ReadonlyArray<readonly [string, string]>;
  body?: Buffer | string;
  /** Adds `content-length` for the body unless false (then the caller's headers decide). */
  contentLength?: boolean;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  /** An SSE stream is not read to its end: the answer is its status and headers. */
  streaming: boolean;
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    const lineEnd = data.indexOf("\r\n", at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString("latin1"), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/**
 * One HTTP/1.1 request on its own loopback connection, written byte for byte: `fetch` and
 * `http.request` refuse to send a forged Host, a raw NUL or an unencoded `..`, which are exactly
 * what an attacker would send. The connection is closed after the answer.
 */
export function rawRequest(port: number, request: RawRequest, timeoutMs = 10_000): Promise<RawResponse> {
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, "utf8");
  const lines = [`${request.method} ${request.target} HTTP/1.1`, ...request.headers.map(([name, value]) => `${name}: ${value}`), "connection: close"];
  if (body !== undefined && request.contentLength !== false) lines.push(`content-length: ${body.length}`);
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    const chunks: Buffer[] = [];
    let settled = false;
    const timer = setTimeout(() => finish(new Error(`no answer to ${request.method} ${request.target.slice(0, 200)} within ${timeoutMs} ms`)), timeoutMs);
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error !== undefined) return reject(error);
      const data = Buffer.concat(chunks);
      const split = data.indexOf("\r\n\r\n");
      if (split < 0)
        return reject(
          new Error(`no HTTP answer to ${request.method} ${request.target.slice(0, 200)}: ${JSON.stringify(data.toString("latin1").slice(0, 200))}`),
        );
      const [statusLine = "", ...headerLines] = data.subarray(0, split).toString("latin1").split("\r\n");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const streaming = (headers["content-type"] ?? "").startsWith("text/event-stream");
      let payload: Buffer = data.subarray(split + 4);
      if (headers["transfer-encoding"]?.includes("chunked") === true) payload = dechunk(payload);
      resolve({ status, headers, body: payload, text: payload.toString("utf8"), streaming });
    };
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      // Server-sent events never end on their own; the headers are the answer.
      const sofar = Buffer.concat(chunks);
      if (sofar.indexOf("\r\n\r\n") >= 0 && /content-type: text\/event-stream/i.test(sofar.toString("latin1"))) finish();
    });
    socket.on("end", () => finish());
    socket.on("close", () => finish());
    // A server may answer (413, 401) and close before the whole body is written: that is an answer.
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (chunks.length > 0 && (error.code === "EPIPE" || error.code === "ECONNRESET")) finish();
      else finish(error);
    });
    socket.on("connect", () => {
      socket.write(head);
      if (body !== undefined) socket.write(body);
    });
  });
}

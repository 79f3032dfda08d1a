import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A shop like the run fixture's (agent/test-support/run-fixture.ts: the same pages, so the same
 * demonstration compiles against it) whose contact page shows its "Send message" button only
 * `lateMs` after it has loaded, as a page that fetches part of itself does (issue #16: content
 * that loads late).
 */
export interface LateShop {
  origin: string;
  host: string;
  /** How long after load the send button appears; 0 shows it at once. */
  setLate(ms: number): void;
  close(): Promise<void>;
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main>${body}</main></body></html>`;

const contact = (lateMs: number) =>
  page(
    "Contact — Run Shop",
    `<h1>Contact us</h1><form method="post" action="/send" aria-label="Contact">
<label for="message">Message</label><input id="message" name="message" type="text">
<label for="code">Access code</label><input id="code" name="code" type="password">
<div id="actions"></div></form>
<script>setTimeout(() => { document.getElementById("actions").innerHTML = '<button id="send" type="submit">Send message</button>'; }, ${lateMs});</script>`,
  );

export async function serveLateShop(): Promise<LateShop> {
  let lateMs = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const pathname = new URL(request.url ?? "/", "http://fixture").pathname;
      if (request.method === "POST" && pathname === "/send") {
        response.writeHead(303, { location: "/sent" }).end();
        return;
      }
      const html =
        pathname === "/start"
          ? page("Run Shop", '<h1>Welcome to the shop</h1><a id="contact-link" href="/contact">Contact us</a>')
          : pathname === "/contact"
            ? contact(lateMs)
            : pathname === "/sent"
              ? page("Sent — Run Shop", '<h1>Message sent</h1><p>Thank you.</p><button type="button">Back to the shop</button>')
              : undefined;
      if (html === undefined) response.writeHead(404).end();
      else response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(html);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    setLate: (ms) => {
      lateMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SITE_DIR = fileURLToPath(new URL("./site/", import.meta.url));
const ONE_PIXEL_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

export interface SeenRequest {
  method: string;
  path: string;
  /** The query as requested (`?a=b`, or ""). */
  search: string;
  body: string;
}

export interface RehearsalSite {
  origin: string;
  port: number;
  /** Every request the site answered, in order: what a rehearsal really sent. */
  requests: SeenRequest[];
  close(): Promise<void>;
}

export interface RehearsalSiteOptions {
  /** Written into pages where they name `__OTHER_ORIGIN__`: a second site the policy may refuse. */
  otherOrigin?: string;
  /** POST paths and where the browser is sent on (303), as a real site would. */
  posts?: Readonly<Record<string, string>>;
  /** GET paths answered this many ms late, as an app's data endpoint under load is. */
  slow?: Readonly<Record<string, number>>;
}

/** A fixture site on 127.0.0.1 for rehearsal tests: the files of `site/`, and a log of requests. */
export async function serveRehearsalSite(options: RehearsalSiteOptions = {}): Promise<RehearsalSite> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((request, response) => {
    void answer(request, response).catch((error: unknown) => {
      response.statusCode = 500;
      response.end(String(error));
    });
  });
  const answer = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    const { pathname, search } = new URL(request.url ?? "/", "http://fixture");
    let body = "";
    for await (const chunk of request) body += String(chunk);
    requests.push({ method: request.method ?? "GET", path: pathname, search, body });
    if (request.method !== "GET" && request.method !== "HEAD") {
      const next = options.posts?.[pathname];
      response.writeHead(next === undefined ? 204 : 303, next === undefined ? {} : { location: next });
      response.end();
      return;
    }
    const late = options.slow?.[pathname];
    if (late !== undefined) await new Promise((resolve) => setTimeout(resolve, late));
    if (pathname.endsWith(".png")) {
      // Any picture is the same 1×1 PNG: what matters is whether the browser asked for it.
      response.writeHead(200, { "content-type": "image/png", "cache-control": "no-store" });
      response.end(ONE_PIXEL_PNG);
      return;
    }
    const file = path.join(SITE_DIR, path.normalize(pathname));
    const html = file.startsWith(SITE_DIR) && file.endsWith(".html") ? await readFile(file, "utf8").catch(() => undefined) : undefined;
    if (html === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    response.end(html.replaceAll("__OTHER_ORIGIN__", options.otherOrigin ?? "http://127.0.0.1:9"));
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

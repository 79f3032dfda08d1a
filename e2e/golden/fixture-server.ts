import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const SITES_DIR = fileURLToPath(new URL("./sites/", import.meta.url));

export interface FixtureSiteRoutes {
  /** Folder under `sites/` whose files are served as they are. */
  folder: string;
  /** GET paths answered by another file of the folder (a server-rendered page, ignoring its query). */
  pages?: Readonly<Record<string, string>>;
  /** POST paths: the form is taken and the browser is sent on (303), as a real site would. */
  posts?: Readonly<Record<string, string>>;
  /** Where the folder is (`sites/` by default). */
  sitesDir?: string;
  /** Rewrites each HTML page before it is served (the cosmetic variants of `npm run learn-quality`). */
  transform?: (html: string) => string;
}

export interface FixtureSite {
  /** `http://127.0.0.1:<port>`, with the port the server was given. */
  origin: string;
  /** Serves every HTML page from now on through `transform` (or as it is): one origin, several variants. */
  setTransform(transform: ((html: string) => string) | undefined): void;
  close(): Promise<void>;
}

const TYPES: Readonly<Record<string, string>> = { ".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8" };

/**
 * One fixture site on 127.0.0.1 (the only host the extension may observe without a prompt, see
 * e2e/capture/background-capture.e2e.test.ts). Form bodies are read and dropped: nothing typed is kept.
 * `port` 0 (the default) takes a free port, as the other e2e fixtures do; read it back from `origin`.
 */
export async function serveFixtureSite(routes: FixtureSiteRoutes, port = 0): Promise<FixtureSite> {
  const sitesDir = routes.sitesDir ?? SITES_DIR;
  let transform = routes.transform;
  const root = path.join(sitesDir, routes.folder);
  const server = http.createServer((request, response) => {
    void answer(request, response).catch((error: unknown) => {
      response.statusCode = 500;
      response.end(String(error));
    });
  });

  const answer = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    const pathname = new URL(request.url ?? "/", "http://fixture").pathname;
    if (request.method === "POST") {
      for await (const chunk of request) void chunk;
      const next = routes.posts?.[pathname];
      response.writeHead(next === undefined ? 404 : 303, next === undefined ? {} : { location: next });
      response.end();
      return;
    }
    const relative = routes.pages?.[pathname] ?? pathname;
    // The shared stylesheet sits next to the sites; everything else comes from the site's folder.
    const file = relative === "/site.css" ? path.join(sitesDir, "site.css") : path.join(root, path.normalize(relative));
    if (!file.startsWith(sitesDir)) {
      response.writeHead(403).end();
      return;
    }
    const body = await readFile(file).catch(() => undefined);
    if (body === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
    response.end(transform !== undefined && path.extname(file) === ".html" ? transform(body.toString("utf8")) : body);
  };

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setTransform: (next) => {
      transform = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

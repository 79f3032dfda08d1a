/**
 * What the work-app fixtures of `npm run learn-quality` (issue #35) share: a server-rendered app on
 * a free loopback port with a sign-in (CSRF token + session cookie, 303 after the POST), its own
 * state in memory read through a test-only route (`GET /__state`, never linked from a page), and a
 * second loopback origin (another port) that serves the avatar image, as a CDN would.
 *
 * Our own code: small Node `http` servers, not copies of any public app. Class names start with
 * `c-` so the "classes renamed" variant (quality-variants.ts) can rename them everywhere at once.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/** A running work app, as the harness and the unit test see it. */
export interface WorkApp {
  /** `http://127.0.0.1:<port>` of the app itself. */
  origin: string;
  /** `http://127.0.0.1:<other port>`: the avatar's origin (a second site). */
  assetOrigin: string;
  /** Serves every HTML page from now on through `transform` (the cosmetic variants). */
  setTransform(transform: ((html: string) => string) | undefined): void;
  /** The app's own state, read over the test-only route. */
  state<T = unknown>(): Promise<T>;
  close(): Promise<void>;
}

export interface Account {
  username: string;
  password: string;
  display: string;
}

export interface Session {
  id: string;
  csrf: string;
  /** Set once signed in. */
  user?: Account;
  /** A notice shown once on the next page (post-redirect-get). */
  flash?: string;
  signedInAt?: string;
}

export interface Request {
  method: string;
  url: URL;
  session: Session;
  form: URLSearchParams;
}

export interface Reply {
  status?: number;
  html?: string;
  redirect?: string;
  json?: unknown;
}

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** A 48×48 round avatar: what the second origin serves. */
const AVATAR_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48"><circle cx="24" cy="24" r="24" fill="#6a8caf"/><circle cx="24" cy="19" r="9" fill="#e8eef4"/><path d="M8 42c3-9 10-13 16-13s13 4 16 13" fill="#e8eef4"/></svg>`;

export const BASE_STYLE = `body{font-family:system-ui,sans-serif;margin:0;color:#222}header{display:flex;gap:1rem;align-items:center;padding:.5rem 1rem;background:#eef2f6;border-bottom:1px solid #ccd}main{max-width:48rem;margin:1rem auto;padding:0 1rem}label{display:block;margin:.5rem 0}input,textarea{font:inherit}textarea{width:100%;min-height:8rem}.c-notice{background:#e6f4e6;border:1px solid #8b8;padding:.4rem .8rem}.c-warning{background:#fff3cd;padding:.4rem .8rem}nav a{margin-right:.8rem}table{border-collapse:collapse}th,td{border:1px solid #ccd;padding:.2rem .5rem}`;

/** One server on a free loopback port; `handle` answers every request but the test-only ones. */
async function listen(handler: http.RequestListener): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

/**
 * Starts an app: `handle` renders pages for a request with its session (a cookie names it; a new
 * visitor gets a new one) and parsed form; `state` is what `GET /__state` returns.
 */
export async function startWorkApp(options: {
  cookieName: string;
  handle: (request: Request, app: { assetOrigin: string }) => Reply | Promise<Reply>;
  state: () => unknown;
}): Promise<WorkApp> {
  const assets = await listen((request, response) => {
    if (request.url?.startsWith("/avatar") === true) {
      response.writeHead(200, { "content-type": "image/svg+xml", "cache-control": "no-store", "access-control-allow-origin": "*" });
      response.end(AVATAR_SVG);
      return;
    }
    response.writeHead(404).end();
  });
  // Diagnosis only (never the default, never a target): `LQ_AVATAR_SAME_ORIGIN=1` serves the
  // avatar from the app's own origin, to see what breaks after the second-origin image.
  const sameOrigin = process.env.LQ_AVATAR_SAME_ORIGIN === "1";
  const sessions = new Map<string, Session>();
  let transform: ((html: string) => string) | undefined;
  const app = await listen((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://fixture");
      if (url.pathname === "/__state") {
        // Test-only: never linked, and only for the harness (no cookie needed, no page reaches it).
        response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
        response.end(JSON.stringify(options.state()));
        return;
      }
      if (sameOrigin && url.pathname.startsWith("/avatar")) {
        response.writeHead(200, { "content-type": "image/svg+xml", "cache-control": "no-store" });
        response.end(AVATAR_SVG);
        return;
      }
      if (url.pathname === "/favicon.ico") {
        response.writeHead(404).end();
        return;
      }
      let body = "";
      for await (const chunk of request) body += String(chunk);
      const known = sessions.get(cookieOf(request.headers.cookie, options.cookieName) ?? "");
      const session = known ?? { id: randomBytes(12).toString("hex"), csrf: randomBytes(12).toString("hex") };
      if (known === undefined) sessions.set(session.id, session);
      const reply = await options.handle(
        { method: request.method ?? "GET", url, session, form: new URLSearchParams(body) },
        { assetOrigin: sameOrigin ? "" : assets.origin },
      );
      const headers: http.OutgoingHttpHeaders = {
        "cache-control": "no-store",
        "set-cookie": `${options.cookieName}=${session.id}; Path=/; HttpOnly; SameSite=Lax`,
      };
      if (reply.redirect !== undefined) {
        response.writeHead(reply.status ?? 303, { ...headers, location: reply.redirect });
        response.end();
      } else if (reply.json !== undefined) {
        response.writeHead(reply.status ?? 200, { ...headers, "content-type": "application/json" });
        response.end(JSON.stringify(reply.json));
      } else {
        const html = reply.html ?? "";
        response.writeHead(reply.status ?? 200, { ...headers, "content-type": "text/html; charset=utf-8" });
        response.end(transform === undefined ? html : transform(html));
      }
    })().catch((error: unknown) => {
      response.statusCode = 500;
      response.end(String(error));
    });
  });
  return {
    origin: app.origin,
    assetOrigin: assets.origin,
    setTransform: (next) => {
      transform = next;
    },
    state: async <T>() => (await (await fetch(`${app.origin}/__state`)).json()) as T,
    close: async () => {
      await app.close();
      await assets.close();
    },
  };
}

/** The notice to show once, then forgotten. */
export function takeFlash(session: Session): string | undefined {
  const flash = session.flash;
  delete session.flash;
  return flash;
}

/** A POST from a page of this session: its CSRF token must come back. */
export function csrfHolds(request: Request, field: string): boolean {
  return request.form.get(field) === request.session.csrf;
}

/** The sign-in check: a known account and its password. */
export function signIn(request: Request, accounts: readonly Account[], fields: { username: string; password: string }): Account | undefined {
  const account = accounts.find((candidate) => candidate.username === request.form.get(fields.username));
  if (account === undefined || account.password !== request.form.get(fields.password)) return undefined;
  request.session.user = account;
  request.session.signedInAt = new Date().toISOString();
  return account;
}

/** Strips markup a rich editor sends down to its text (what the app keeps and shows). */
export function textOfHtml(html: string): string {
  return html
    .replace(/<(br|\/p|\/div|\/li)[^>]*>/gi, "\n")
    .replace(/<[^>]+>/g, "")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/\n{2,}/g, "\n")
    .trim();
}

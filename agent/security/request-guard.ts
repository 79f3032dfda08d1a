import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { AppError } from "../errors/app-error";
import { tokensMatch } from "./agent-token";
import type { PairingService } from "./pairing-service";

/**
 * Who may call a route. `public` is only `GET /api/health`; `pairing` routes accept any
 * extension Origin because that is how the agent learns the extension's id, but they still need
 * the token; everything else needs the token and, from a browser, the paired extension's Origin.
 * `socket` (the observation WebSocket) checks Host and Origin here and the token in its first
 * frame, because a browser cannot put an Authorization header on a WebSocket.
 */
export type RouteAccess = "public" | "pairing" | "paired" | "socket";

declare module "fastify" {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

export interface RequestGuardOptions {
  token: string;
  pairing: PairingService;
  /** The ports this agent answers on: the configured one, or the real one once listening on port 0. */
  allowedPorts: () => readonly number[];
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
const EXTENSION_ORIGIN = /^chrome-extension:\/\/([a-p]{32})$/;
const TOKEN_QUERY_KEYS = ["token", "access_token", "auth", "authorization", "bearer"];

function splitHost(host: string): { name: string; port: number | undefined } {
  const match = /^(\[[0-9a-fA-F:]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(host.trim().toLowerCase());
  if (match === null) return { name: "", port: undefined };
  return { name: match[1] ?? "", port: match[2] === undefined ? undefined : Number(match[2]) };
}

function isAllowedHost(host: string, allowedPorts: readonly number[]): boolean {
  const { name, port } = splitHost(host);
  return LOOPBACK_HOSTS.has(name) && port !== undefined && allowedPorts.includes(port);
}

/** The authority of an absolute-form target (`GET http://host/path`), which RFC 9112 §3.2.2 puts before Host. */
function targetAuthority(rawUrl: string): string | undefined {
  if (rawUrl.startsWith("/")) return undefined;
  try {
    const { host, protocol } = new URL(rawUrl);
    return protocol === "http:" ? host : "";
  } catch {
    return "";
  }
}

function checkHost(request: FastifyRequest, allowedPorts: readonly number[]): void {
  const host = request.headers.host;
  const authority = targetAuthority(request.raw.url ?? "");
  // A DNS-rebinding page reaches us under its own host name; only loopback names with our port pass,
  // in the Host header and in a proxy-style target alike.
  if (!isAllowedHost(typeof host === "string" ? host : "", allowedPorts) || (authority !== undefined && !isAllowedHost(authority, allowedPorts))) {
    throw new AppError("HOST_NOT_ALLOWED", "The Host header must be a loopback address with the agent's port.");
  }
}

function checkNoTokenInUrl(request: FastifyRequest): void {
  const query = request.url.indexOf("?");
  if (query < 0) return;
  const params = new URLSearchParams(request.url.slice(query + 1));
  for (const key of params.keys()) {
    if (TOKEN_QUERY_KEYS.includes(key.toLowerCase())) {
      throw new AppError("TOKEN_IN_URL_REJECTED", "Send the token in the Authorization header, never in the URL.");
    }
  }
}

function checkOrigin(request: FastifyRequest, access: RouteAccess, pairing: PairingService): void {
  const origin = request.headers.origin;
  // No Origin: a local program (desktop adapter, CLI), not a web page; the token decides.
  if (origin === undefined) return;
  const extension = EXTENSION_ORIGIN.exec(origin);
  if (extension !== null) {
    if (access === "pairing" || access === "public") return;
    if (pairing.current()?.extension_id === extension[1]) return;
    throw new AppError("ORIGIN_NOT_ALLOWED", "This extension is not the paired one. Pair it again with the agent's token.");
  }
  throw new AppError("ORIGIN_NOT_ALLOWED", "Requests from web pages are refused; only the paired extension may call the agent.");
}

function checkToken(request: FastifyRequest, token: string): void {
  const header = request.headers.authorization;
  if (header === undefined || header.length === 0) {
    throw new AppError("AUTH_REQUIRED", "Send the agent token as 'Authorization: Bearer <token>'.");
  }
  const match = /^Bearer ([^\s]{1,512})$/.exec(header);
  if (match === null || !tokensMatch(token, match[1] ?? "")) {
    throw new AppError("AUTH_INVALID", "The agent token was not accepted. Copy it again from the agent's start-up output.");
  }
}

/** §0A.32 and DESIGN §4: every check runs on every request, and a missing piece fails closed. */
export const requestGuard = fp<RequestGuardOptions>(
  async (app: FastifyInstance, options) => {
    app.addHook("onRequest", async (request) => {
      const access: RouteAccess = request.routeOptions.config?.access ?? "paired";
      checkHost(request, options.allowedPorts());
      checkNoTokenInUrl(request);
      checkOrigin(request, access, options.pairing);
      if (access === "paired" || access === "pairing") checkToken(request, options.token);
    });
  },
  { name: "request-guard" },
);

import type { CDPSession, Dialog, Page, Protocol } from "puppeteer-core";
import type { TestPolicy } from "../../../shared/learning/sessions/test-policy";
import type { BrowserLease } from "./executor-contract";
import { clamp } from "./execution-util";

/** What the policy has seen so far: the first breach stops the execution. */
export interface PolicyWatch {
  violation: string | undefined;
  breach(message: string): void;
  /** Notes for the current step (a native dialog answered, a request refused). */
  notes: string[];
  /** A page's read from another host that the policy let through (§9 "Policy reads like a browser"): listed, not refused. */
  readElsewhere(origin: string, resourceType: string): void;
  /** Every read from another host let through so far, by origin and kind, in the order first seen. */
  readsElsewhere(): ReadElsewhere[];
}

/** Reads of one kind from one other origin, as a person is shown them. */
export interface ReadElsewhere {
  origin: string;
  /** CDP's resource type: `Image`, `Font`, `Stylesheet`, `Script`, `Media`, `XHR`, `Fetch`, `Document` (a frame's page), … */
  resource_type: string;
  count: number;
}

export function createPolicyWatch(): PolicyWatch {
  const reads = new Map<string, ReadElsewhere>();
  const watch: PolicyWatch = {
    violation: undefined,
    notes: [],
    breach(message) {
      watch.notes.push(message);
      watch.violation ??= message;
    },
    readElsewhere(origin, resourceType) {
      const key = `${origin} ${resourceType}`;
      const seen = reads.get(key);
      if (seen !== undefined) {
        seen.count += 1;
        return;
      }
      reads.set(key, { origin, resource_type: resourceType, count: 1 });
      watch.notes.push(`read from another host let through: ${describeRead(origin, resourceType)}`);
    },
    readsElsewhere: () => [...reads.values()].map((read) => ({ ...read })),
  };
  return watch;
}

const KIND_WORDS: Readonly<Record<string, string>> = {
  Image: "image",
  Font: "font",
  Stylesheet: "style sheet",
  Script: "script",
  Media: "media file",
  XHR: "data request",
  Fetch: "data request",
  Document: "framed page",
  TextTrack: "caption file",
  Manifest: "app manifest",
};

function describeRead(origin: string, resourceType: string, count = 1): string {
  const word = KIND_WORDS[resourceType] ?? `${resourceType.toLowerCase()} request`;
  return `${count} ${word}${count === 1 ? "" : "s"} from ${origin}`;
}

/** The reads from other hosts as one line a person reads ("2 images from https://cdn.example; 1 font from …"). */
export function describeReadsElsewhere(reads: readonly ReadElsewhere[]): string {
  return reads.map((read) => describeRead(read.origin, read.resource_type, read.count)).join("; ");
}

/** `example.com` allows it and its subdomains on any port; `127.0.0.1:8123` allows that port only. */
export function hostAllowed(url: URL, allowedDomains: readonly string[]): boolean {
  const port = url.port || (url.protocol === "https:" || url.protocol === "wss:" ? "443" : "80");
  const hostname = url.hostname.toLowerCase();
  return allowedDomains.some((entry) => {
    let allowed: URL;
    try {
      const bare = entry.trim().replace(/^\*?\./, "");
      allowed = new URL(bare.includes("://") ? bare : `http://${bare}`);
    } catch {
      return false;
    }
    const allowedHost = allowed.hostname.toLowerCase();
    const hostMatches = hostname === allowedHost || hostname.endsWith(`.${allowedHost}`);
    return hostMatches && (allowed.port === "" || allowed.port === port);
  });
}

export function notAllowedMessage(url: URL, allowedDomains: readonly string[]): string {
  const list = allowedDomains.length === 0 ? "it is empty" : allowedDomains.join(", ");
  return `request to ${url.origin} refused: ${url.host} is not in the test policy's allowed_domains (${list})`;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** What a page may read from another host: the methods of a read, nothing a server could take as a write. */
const READ_METHODS = new Set(["GET", "HEAD"]);

/** How a request is being made, beyond its address and method. */
export interface RequestContext {
  /** CDP's resource type (`Document`, `Script`, `Image`, `XHR`, …); undefined when not known. */
  resourceType?: string | undefined;
  /** A `Document` that loads into a child frame of the page (an embed), not the tab's own page. */
  subframe?: boolean;
  /** A run the person asked for under its own policy (ExecuteInput.onBehalfOfPerson). */
  onBehalfOfPerson?: boolean;
  /** The person confirmed the step now running. */
  personConfirmed?: boolean;
}

/** What the policy says of one request. */
export type RequestVerdict = { kind: "allowed" } | { kind: "read_elsewhere" } | { kind: "refused"; reason: string };

/**
 * The network rule (§0C.14, DESIGN §9 "Policy reads like a browser"). Under `live_read_safe_write`
 * (and in a run the person asked for) a page's own reads from other hosts go through and are listed:
 * GET/HEAD of anything that is not the tab's page itself (images, fonts, style sheets, scripts,
 * media, data requests, an embedded frame's page). A top-level page off the allowed sites and any
 * other method to another host are refused. Every other mode, dry runs included, keeps every request
 * on the allowed sites.
 */
export function judgeRequest(url: URL, method: string, pageOrigin: string | undefined, policy: TestPolicy, context: RequestContext = {}): RequestVerdict {
  if (url.protocol !== "http:" && url.protocol !== "https:") return { kind: "allowed" };
  if (!hostAllowed(url, policy.allowed_domains)) {
    const readsLikeABrowser = policy.mode === "live_read_safe_write" || context.onBehalfOfPerson === true;
    const subresource = context.resourceType !== undefined && (context.resourceType !== "Document" || context.subframe === true);
    const preflight = method === "OPTIONS" && context.resourceType === "Preflight";
    if (readsLikeABrowser && subresource && (READ_METHODS.has(method) || preflight)) return { kind: "read_elsewhere" };
    return { kind: "refused", reason: notAllowedMessage(url, policy.allowed_domains) };
  }
  if (SAFE_METHODS.has(method)) return { kind: "allowed" };
  if (policy.mode === "read_only")
    return { kind: "refused", reason: `${method} ${url.origin}${url.pathname} refused: the read_only test policy allows no writes` };
  const confirmedDelete = context.onBehalfOfPerson === true && context.personConfirmed === true;
  if (policy.forbid_destructive_writes && method === "DELETE" && !confirmedDelete)
    return { kind: "refused", reason: `DELETE ${url.origin}${url.pathname} refused: the test policy forbids destructive writes` };
  if (policy.forbid_external_send && url.origin !== pageOrigin) {
    return {
      kind: "refused",
      reason: `${method} to ${url.origin} refused: the test policy forbids sending to another origin than the page's (${pageOrigin ?? "none"})`,
    };
  }
  return { kind: "allowed" };
}

/** Why the policy refuses a request, or undefined when it may go. */
export function refusal(url: URL, method: string, pageOrigin: string | undefined, policy: TestPolicy, context: RequestContext = {}): string | undefined {
  const verdict = judgeRequest(url, method, pageOrigin, policy, context);
  return verdict.kind === "refused" ? verdict.reason : undefined;
}

function safeOrigin(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * Every request passes here first (CDP Fetch): refused ones fail as blocked by the client and
 * breach the policy. In the managed browser the guard is on the browser target, so every page,
 * frame and worker is covered; a lease of the person's tab is guarded on its page's own target
 * (its same-process frames), as a provider there may not offer browser-wide interception.
 */
export async function guardNetwork(
  lease: BrowserLease,
  policy: TestPolicy,
  watch: PolicyWatch,
  options: { onBehalfOfPerson?: boolean; personConfirmed?: () => boolean } = {},
): Promise<{ dispose(): Promise<void> }> {
  const session: CDPSession = lease.where === "managed" ? await lease.browser.target().createCDPSession() : await lease.page.createCDPSession();
  // Which frame is the tab's own page, asked now: while a navigation waits on this guard, the page's
  // Page domain does not answer (asking then would hold the navigation until the step's time ran out).
  const mainFrameId = await mainFrameOf(lease, session);
  const onPaused = async (event: Protocol.Fetch.RequestPausedEvent) => {
    let url: URL | undefined;
    try {
      url = new URL(event.request.url);
    } catch {
      url = undefined;
    }
    const method = event.request.method.toUpperCase();
    const context: RequestContext = {
      resourceType: event.resourceType,
      onBehalfOfPerson: options.onBehalfOfPerson === true,
      personConfirmed: options.personConfirmed?.() === true,
    };
    const pageOrigin = safeOrigin(lease.page.url());
    let verdict = url === undefined ? ({ kind: "allowed" } as const) : judgeRequest(url, method, pageOrigin, policy, context);
    // Only a document that would be refused is worth asking about: is it an embed (a read) or a tab's own page?
    if (url !== undefined && verdict.kind === "refused" && event.resourceType === "Document" && (await isEmbed(lease, session, mainFrameId, event.frameId))) {
      verdict = judgeRequest(url, method, pageOrigin, policy, { ...context, subframe: true });
    }
    if (verdict.kind === "refused") watch.breach(verdict.reason);
    if (verdict.kind === "read_elsewhere" && url !== undefined) watch.readElsewhere(url.origin, event.resourceType);
    const answer =
      verdict.kind !== "refused"
        ? session.send("Fetch.continueRequest", { requestId: event.requestId })
        : session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" });
    // Only fails when the browser is closing, and then the paused request goes with it.
    answer.catch(() => undefined);
  };
  const listener = (event: Protocol.Fetch.RequestPausedEvent) => void onPaused(event).catch(() => undefined);
  session.on("Fetch.requestPaused", listener);
  await session.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] });
  return {
    async dispose() {
      session.off("Fetch.requestPaused", listener);
      await session.send("Fetch.disable").catch(() => undefined);
      await session.detach().catch(() => undefined);
    },
  };
}

async function mainFrameOf(lease: BrowserLease, guardSession: CDPSession): Promise<string | undefined> {
  // A lent tab's guard session is already the page's; the managed one is the browser's.
  const pageSession = lease.where === "managed" ? await lease.page.createCDPSession() : guardSession;
  try {
    return (await pageSession.send("Page.getFrameTree")).frameTree.frame.id;
  } catch {
    return undefined;
  } finally {
    if (pageSession !== guardSession) await pageSession.detach().catch(() => undefined);
  }
}

/**
 * Whether a document loads into an embedded frame rather than a tab's own page. The tab's main
 * frame, any other page of the managed browser (a popup: its frame id is its target's) and a frame
 * that cannot be told apart are top-level, the side that is refused.
 */
async function isEmbed(lease: BrowserLease, session: CDPSession, mainFrameId: string | undefined, frameId: string): Promise<boolean> {
  if (mainFrameId === undefined || frameId === mainFrameId) return false;
  // A lent tab's guard sees its own page's requests only: any other frame there is one of its embeds.
  if (lease.where !== "managed") return true;
  try {
    const { targetInfos } = await session.send("Target.getTargets");
    return !targetInfos.some((target) => target.targetId === frameId && target.type !== "iframe");
  } catch {
    return false;
  }
}

const SUBMIT_BINDING = "__elnorRehearsalRefusedSubmit";

/**
 * Runs in every document before its own scripts, as source text (see checkpoint-check.ts): a form
 * submitted to another origin is stopped before it leaves, GET forms included, which the network
 * guard cannot tell from a link.
 */
const SUBMIT_GUARD_SCRIPT = `(() => {
  window.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || location.origin === "null") return;
    const submitter = event.submitter;
    const action = submitter && submitter.hasAttribute("formaction") ? submitter.formAction : form.action;
    let target;
    try { target = new URL(action || location.href, location.href); } catch { return; }
    if (target.protocol !== "http:" && target.protocol !== "https:") return;
    if (target.origin === location.origin) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    window[${JSON.stringify(SUBMIT_BINDING)}](target.origin, location.origin);
  }, true);
})();`;

/**
 * The submit guard and the answer to native dialogs, on the page; `dispose` takes them off again
 * (the person's tab outlives the execution).
 */
export async function preparePage(
  page: Page,
  policy: TestPolicy,
  watch: PolicyWatch,
  options: { personConfirmed?: () => boolean } = {},
): Promise<{ dispose(): Promise<void> }> {
  const undo: Array<() => Promise<unknown>> = [];
  if (policy.forbid_external_send) {
    await page.exposeFunction(SUBMIT_BINDING, (target: unknown, from: unknown) => {
      watch.breach(`form submission to ${String(target)} refused: the test policy forbids sending to another origin than the page's (${String(from)})`);
    });
    undo.push(() => page.removeExposedFunction(SUBMIT_BINDING));
    const { identifier } = await page.evaluateOnNewDocument(SUBMIT_GUARD_SCRIPT);
    undo.push(() => page.removeScriptToEvaluateOnNewDocument(identifier));
  }
  // A native dialog would block the page; answer it so the flow goes on, and say so.
  // A question the page asks during a step the person has just confirmed is covered by their yes
  // (read_only and dry runs still refuse it).
  const onDialog = (dialog: Dialog) => {
    const asks = dialog.type() === "confirm" || dialog.type() === "prompt";
    const byPerson = asks && policy.mode !== "read_only" && policy.mode !== "dry_run_only" && options.personConfirmed?.() === true;
    const refuse = asks && !byPerson && (policy.forbid_destructive_writes || policy.mode === "read_only" || policy.mode === "dry_run_only");
    watch.notes.push(
      `the page asked (${dialog.type()}) "${clamp(dialog.message(), 120)}": ${refuse ? "dismissed under the test policy" : byPerson ? "accepted, as the person confirmed this step" : "accepted"}`,
    );
    (refuse ? dialog.dismiss() : dialog.accept()).catch(() => undefined);
  };
  page.on("dialog", onDialog);
  undo.push(async () => page.off("dialog", onDialog));
  return {
    async dispose() {
      for (const step of undo.reverse()) await step().catch(() => undefined);
    },
  };
}

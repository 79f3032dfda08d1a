import type { CDPSession, Dialog, Page, Protocol } from "puppeteer-core";
import type { TestPolicy } from "../../shared/learning/test-policy";
import type { BrowserLease } from "./executor-contract";
import { clamp } from "./execution-util";

/** What the policy has seen so far: the first breach stops the execution. */
export interface PolicyWatch {
  violation: string | undefined;
  breach(message: string): void;
  /** Notes for the current step (a native dialog answered, a request refused). */
  notes: string[];
}

export function createPolicyWatch(): PolicyWatch {
  const watch: PolicyWatch = {
    violation: undefined,
    notes: [],
    breach(message) {
      watch.notes.push(message);
      watch.violation ??= message;
    },
  };
  return watch;
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

/** Why the policy refuses a request, or undefined when it may go. */
export function refusal(url: URL, method: string, pageOrigin: string | undefined, policy: TestPolicy): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (!hostAllowed(url, policy.allowed_domains)) return notAllowedMessage(url, policy.allowed_domains);
  if (SAFE_METHODS.has(method)) return undefined;
  if (policy.mode === "read_only") return `${method} ${url.origin}${url.pathname} refused: the read_only test policy allows no writes`;
  if (policy.forbid_destructive_writes && method === "DELETE") return `DELETE ${url.origin}${url.pathname} refused: the test policy forbids destructive writes`;
  if (policy.forbid_external_send && url.origin !== pageOrigin) {
    return `${method} to ${url.origin} refused: the test policy forbids sending to another origin than the page's (${pageOrigin ?? "none"})`;
  }
  return undefined;
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
export async function guardNetwork(lease: BrowserLease, policy: TestPolicy, watch: PolicyWatch): Promise<{ dispose(): Promise<void> }> {
  const session: CDPSession = lease.where === "managed" ? await lease.browser.target().createCDPSession() : await lease.page.createCDPSession();
  const onPaused = (event: Protocol.Fetch.RequestPausedEvent) => {
    let url: URL | undefined;
    try {
      url = new URL(event.request.url);
    } catch {
      url = undefined;
    }
    const reason = url === undefined ? undefined : refusal(url, event.request.method.toUpperCase(), safeOrigin(lease.page.url()), policy);
    if (reason !== undefined) watch.breach(reason);
    const answer =
      reason === undefined
        ? session.send("Fetch.continueRequest", { requestId: event.requestId })
        : session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" });
    // Only fails when the browser is closing, and then the paused request goes with it.
    answer.catch(() => undefined);
  };
  session.on("Fetch.requestPaused", onPaused);
  await session.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] });
  return {
    async dispose() {
      session.off("Fetch.requestPaused", onPaused);
      await session.send("Fetch.disable").catch(() => undefined);
      await session.detach().catch(() => undefined);
    },
  };
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
export async function preparePage(page: Page, policy: TestPolicy, watch: PolicyWatch): Promise<{ dispose(): Promise<void> }> {
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
  const onDialog = (dialog: Dialog) => {
    const refuse = (dialog.type() === "confirm" || dialog.type() === "prompt") && (policy.forbid_destructive_writes || policy.mode === "read_only" || policy.mode === "dry_run_only");
    watch.notes.push(`the page asked (${dialog.type()}) "${clamp(dialog.message(), 120)}": ${refuse ? "dismissed under the test policy" : "accepted"}`);
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

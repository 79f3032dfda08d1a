/**
 * The lent tab's own site guard (issue #21): every document the tab would load is paused first
 * (CDP Fetch) and one off the lease's sites is failed as blocked by the client, so a click or a
 * form that leads elsewhere never reaches the other site. The tab has one debugger session, shared
 * with the agent, whose executor has its own network guard on Fetch too: the agent's Fetch.enable
 * and Fetch.disable are folded in here (its patterns are added to ours, its disable leaves ours),
 * and a paused request goes to the agent only when one of its patterns asked for it.
 */

export interface FetchPattern {
  urlPattern?: string;
  resourceType?: string;
  requestStage?: "Request" | "Response";
}

interface PausedRequest {
  requestId: string;
  frameId?: string;
  resourceType?: string;
  request?: { url?: string };
  responseStatusCode?: number;
  responseErrorReason?: string;
}

export interface TabSiteGuard {
  /** Pauses documents from now on. */
  start(): Promise<void>;
  /** A `Fetch.requestPaused` event: true when it was the agent's to answer (forward it). */
  paused(params: Record<string, unknown>): Promise<boolean>;
  /** The agent's Fetch.enable / Fetch.disable, folded in; undefined for any other command. */
  agentCommand(method: string, params: Record<string, unknown> | undefined): Promise<Record<string, unknown>> | undefined;
}

const OURS: FetchPattern = { urlPattern: "*", resourceType: "Document", requestStage: "Request" };

export function createTabSiteGuard(deps: {
  send(method: string, params?: Record<string, unknown>): Promise<object | undefined>;
  allowed(url: string): boolean;
  /** Whether a frame is the tab's main frame: only its documents are held to the sites (a page's own embeds are the run policy's). */
  isMainFrame(frameId: string | undefined): boolean;
  /** A document off the sites was refused (the lease may end on it). */
  onRefused(url: string): void;
}): TabSiteGuard {
  let agentPatterns: FetchPattern[] | undefined;

  const enable = () => deps.send("Fetch.enable", { patterns: [OURS, ...(agentPatterns ?? [])] });

  return {
    async start() {
      await enable();
    },

    async paused(raw) {
      const event = raw as unknown as PausedRequest;
      const url = event.request?.url ?? "";
      const atResponse = event.responseStatusCode !== undefined || event.responseErrorReason !== undefined;
      if (!atResponse && event.resourceType === "Document" && deps.isMainFrame(event.frameId) && !deps.allowed(url)) {
        await deps.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" }).catch(() => undefined);
        deps.onRefused(url);
        return false;
      }
      const stage = atResponse ? "Response" : "Request";
      if (agentPatterns?.some((pattern) => matches(pattern, url, event.resourceType, stage)) === true) return true;
      await deps.send("Fetch.continueRequest", { requestId: event.requestId }).catch(() => undefined);
      return false;
    },

    agentCommand(method, params) {
      if (method === "Fetch.enable") {
        agentPatterns = Array.isArray(params?.patterns) ? (params.patterns as FetchPattern[]) : [{ urlPattern: "*" }];
        return enable().then(() => ({}));
      }
      if (method === "Fetch.disable") {
        agentPatterns = undefined;
        return enable().then(() => ({}));
      }
      return undefined;
    },
  };
}

/** CDP's Fetch pattern: `*` any run of characters, `?` exactly one, backslash escapes; stage Request by default. */
export function matches(pattern: FetchPattern, url: string, resourceType: string | undefined, stage: "Request" | "Response"): boolean {
  if ((pattern.requestStage ?? "Request") !== stage) return false;
  if (pattern.resourceType !== undefined && pattern.resourceType !== resourceType) return false;
  const glob = pattern.urlPattern ?? "*";
  let source = "";
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index] as string;
    if (char === "\\" && index + 1 < glob.length) {
      index += 1;
      source += escapeRegex(glob[index] as string);
    } else if (char === "*") source += ".*";
    else if (char === "?") source += ".";
    else source += escapeRegex(char);
  }
  return new RegExp(`^${source}$`, "s").test(url);
}

function escapeRegex(char: string): string {
  return char.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * The lent tab's frames of other sites (issue #30): Chrome runs a cross-site iframe as a child
 * target of its own, reached through a child session. A run drives the tab's page only: a command
 * aimed at a child session (a frame of another site, a worker) is refused, and so is every
 * `Target.*` command that would attach to one. The agent's transport never follows children either;
 * the extension does not take its word for it. The code is the policy's own, TEST_POLICY_VIOLATION.
 */
export interface ChildTargetGuard {
  /** An event of the tab's debugger: child targets attached, changed and gone are noted. */
  observe(method: string, params: Record<string, unknown>): void;
  /** Why the agent's command may not be relayed, or undefined when it goes to the tab's page. */
  refusal(method: string, sessionId: string | undefined): string | undefined;
}

interface ChildTarget {
  type: string;
  url: string;
}

export const CHILD_TARGET_REFUSAL_PREFIX = "TEST_POLICY_VIOLATION:";

export function createChildTargetGuard(): ChildTargetGuard {
  /** By session id: what Chrome said each child session is. */
  const children = new Map<string, ChildTarget & { targetId: string }>();

  return {
    observe(method, params) {
      if (method === "Target.attachedToTarget") {
        const sessionId = params.sessionId;
        const info = params.targetInfo as { targetId?: unknown; type?: unknown; url?: unknown } | undefined;
        if (typeof sessionId !== "string" || info === undefined) return;
        children.set(sessionId, { targetId: String(info.targetId ?? ""), type: String(info.type ?? "other"), url: String(info.url ?? "") });
      } else if (method === "Target.detachedFromTarget") {
        if (typeof params.sessionId === "string") children.delete(params.sessionId);
      } else if (method === "Target.targetInfoChanged") {
        const info = params.targetInfo as { targetId?: unknown; url?: unknown } | undefined;
        for (const child of children.values()) if (child.targetId === info?.targetId && typeof info.url === "string") child.url = info.url;
      }
    },

    refusal(method, sessionId) {
      if (sessionId === undefined) {
        if (!method.startsWith("Target.")) return undefined;
        return `${CHILD_TARGET_REFUSAL_PREFIX} ${method} refused: a run acts in the lent tab's page only and never attaches to its frames of other sites or its workers.`;
      }
      const child = children.get(sessionId);
      if (child?.type === "iframe") {
        return `${CHILD_TARGET_REFUSAL_PREFIX} ${method} refused: it is aimed at a frame from ${originOf(child.url)} inside the lent tab, and a run never drives a frame of another site.`;
      }
      return `${CHILD_TARGET_REFUSAL_PREFIX} ${method} refused: it is aimed at ${child === undefined ? "a session that is not the lent tab's page" : `a ${child.type} of the lent tab`}; a run acts in the tab's page only.`;
    },
  };
}

/** Only the origin of a frame's address is said, never its path or query. */
function originOf(url: string): string {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? "another site" : origin;
  } catch {
    return "another site";
  }
}

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

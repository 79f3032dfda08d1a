import type { Browser } from "wxt/browser";
import { urlMatchesAllowList } from "../../../shared/observation/site-allowlist";
import type { BackgroundToContentMessage, CaptureConfig } from "../../observation/common/capture-messages";
import { grantedOriginPatterns, originPatternsForAllowList } from "./site-permissions";

/** The id of our one dynamic registration, and the file WXT builds from entrypoints/content.ts. */
export const CAPTURE_SCRIPT_ID = "elnor-capture";
export const CAPTURE_SCRIPT_FILE = "content-scripts/content.js";

export interface CaptureScriptsDeps {
  scripting: Pick<typeof Browser.scripting, "getRegisteredContentScripts" | "registerContentScripts" | "unregisterContentScripts" | "executeScript">;
  tabs: Pick<typeof Browser.tabs, "query" | "sendMessage">;
  permissions: Pick<typeof Browser.permissions, "contains">;
}

export interface CaptureScripts {
  /**
   * Registers the content script for the session's sites the user has granted, replacing any
   * earlier registration; returns the patterns now registered (empty: nothing is observed).
   */
  register(allowList: readonly string[]): Promise<string[]>;
  unregister(): Promise<void>;
  /**
   * Tells every open tab on `allowList`'s sites its config (`configFor` its URL; null: stop observing). With
   * `injectMissing`, a tab that has no content script yet gets one, so capture starts in tabs that
   * were open before Start without a reload.
   */
  broadcast(configFor: (url: string) => Promise<CaptureConfig | null>, allowList: readonly string[], options: { injectMissing: boolean }): Promise<void>;
}

const NO_RECEIVER = /Receiving end does not exist/i;
/** A page that does not take its config within this time must not hold up the next change. */
const PAGE_ANSWER_TIMEOUT_MS = 5_000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Where the observation content script runs (issue #4 "allow-list at the source"): registered at
 * runtime, only for the allowed and granted sites, only between Start and Stop. The registration
 * does not persist across browser restarts: a new browser asks the agent before observing again.
 */
export function createCaptureScripts(deps: CaptureScriptsDeps): CaptureScripts {
  const grantedFor = (allowList: readonly string[]) =>
    grantedOriginPatterns(originPatternsForAllowList(allowList), (origins) => deps.permissions.contains({ origins }));

  const registered = async () => deps.scripting.getRegisteredContentScripts({ ids: [CAPTURE_SCRIPT_ID] });

  const unregister = async () => {
    if ((await registered()).length > 0) await deps.scripting.unregisterContentScripts({ ids: [CAPTURE_SCRIPT_ID] });
  };

  /** Open tabs whose page is on the allow-list (and so may be observed). */
  const observedTabs = async (allowList: readonly string[]) => {
    const patterns = await grantedFor(allowList);
    if (patterns.length === 0) return [];
    const tabs = await deps.tabs.query({ url: patterns });
    return tabs.filter((tab) => tab.id !== undefined && tab.url !== undefined && urlMatchesAllowList(tab.url, allowList));
  };

  return {
    async register(allowList) {
      const patterns = await grantedFor(allowList);
      const existing = (await registered())[0];
      const same = existing !== undefined && [...(existing.matches ?? [])].sort().join(" ") === [...patterns].sort().join(" ");
      if (same) return patterns;
      await unregister();
      if (patterns.length === 0) return patterns;
      await deps.scripting.registerContentScripts([
        {
          id: CAPTURE_SCRIPT_ID,
          js: [CAPTURE_SCRIPT_FILE],
          matches: patterns,
          // Top frame only: the content script covers its same-origin iframes itself, and a second
          // copy inside them would record every action twice.
          allFrames: false,
          runAt: "document_end",
          persistAcrossSessions: false,
        },
      ]);
      return patterns;
    },

    unregister,

    async broadcast(configFor, allowList, options) {
      const tabs = await observedTabs(allowList);
      await Promise.all(
        tabs.map(async (tab) => {
          const tabId = tab.id as number;
          // Each tab its own: the typed values a page holds are those of its own site.
          const config = await configFor(tab.url as string);
          const message: BackgroundToContentMessage = { type: "capture/config", config };
          try {
            await withTimeout(deps.tabs.sendMessage(tabId, message, { frameId: 0 }), PAGE_ANSWER_TIMEOUT_MS);
          } catch (error) {
            // No content script in this tab yet (opened before Start, or before a restart of the browser).
            if (!options.injectMissing || config === null || !NO_RECEIVER.test(String(error))) return;
            try {
              await deps.scripting.executeScript({ target: { tabId, frameIds: [0] }, files: [CAPTURE_SCRIPT_FILE] });
            } catch {
              // The tab navigated away or closed meanwhile; the registration covers its next page.
            }
          }
        }),
      );
    },
  };
}

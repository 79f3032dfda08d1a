import type { AgentLinkState, CaptureStatusReply, TabRunAccessReply } from "./panel-messages";

/**
 * What the Learn UI needs from the browser, given to it by the side panel entry
 * (implemented in extension/entrypoints/sidepanel/) so components stay testable without Chrome.
 */
export interface PanelBrowser {
  /** The http(s) address of the tab the person is working in, when the extension may read it. */
  currentTabUrl(): Promise<string | undefined>;
  /**
   * Asks Chrome for access to the session's sites. Must be called synchronously from a click
   * handler (Chrome only prompts during a user gesture). Resolves false when refused.
   */
  requestSiteAccess(sites: readonly string[]): Promise<boolean>;
  /** Opens the extension's link to the agent now; the agent only starts a browser capture with it. */
  ensureConnected(timeoutMs: number): Promise<AgentLinkState | "no_background">;
  /** The background's link, session mirror and outbox; null when it does not answer. */
  captureStatus(): Promise<CaptureStatusReply | null>;
  /**
   * Issue #21 "In my browser": whether the extension can lend a tab now (it also opens its link to
   * the agent). Null when the background does not answer. Absent where the extension cannot act
   * in tabs: the panel then offers only "In a separate browser".
   */
  tabRunAccess?(): Promise<TabRunAccessReply | null>;
  /**
   * The person's answer to "Let the assistant act in your tabs?", kept by the extension (Chrome
   * cannot make `debugger` an optional permission, so this consent is what gates it).
   */
  allowInTabRuns?(allowed: boolean): Promise<TabRunAccessReply | null>;
  /**
   * Issue #33: calls back with the run a notification's click asked the panel to show (just before
   * the panel opened, or while it is open); the returned function stops watching.
   */
  watchRunFocus?(onFocus: (dispatchId: string) => void): () => void;
}

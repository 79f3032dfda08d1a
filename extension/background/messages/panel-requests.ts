import type { z } from "zod";
import type {
  AgentLinkState,
  BackgroundFailure,
  CaptureStatusReply,
  EnsureConnectedReply,
  LastControl,
  OutboxStatus,
  PanelRequestSchema,
  TabRunAccessReply,
} from "../../../shared/observation/panel-messages";
import { isActiveCapture } from "../capture/capture-config";
import type { CaptureSession } from "../capture/capture-session";
import type { OutboxSender } from "../outbox/outbox-sender";
import { assertNever } from "../../../shared/common/assert-never";

export interface PanelRequestDeps {
  capture: CaptureSession;
  outbox(): Promise<OutboxSender>;
  ensureConnected(timeoutMs: number): Promise<AgentLinkState>;
  linkState(): AgentLinkState;
  lastControl(): Promise<LastControl | null>;
  lastFailure(): Promise<BackgroundFailure | null>;
  /** The person's word on in-tab runs (issue #21), asked at the first one. */
  inTabRuns: { allowed(): Promise<boolean>; set(allowed: boolean): Promise<void> };
  /** Whether Chrome gives the extension `chrome.debugger` (a policy can withhold it). */
  hasDebugger(): boolean;
  /** Whether the assistant is acting in a tab now. */
  runActive(): boolean;
}

/** The side panel's questions (shared/observation/panel-messages.ts), each answered with its reply shape. */
export async function answerPanel(deps: PanelRequestDeps, request: z.infer<typeof PanelRequestSchema>): Promise<unknown> {
  switch (request.type) {
    case "capture/outbox-status": {
      const status: OutboxStatus = await (await deps.outbox()).status();
      return status;
    }
    case "capture/ensure-connected":
      return { connection: await deps.ensureConnected(request.timeout_ms) } satisfies EnsureConnectedReply;
    case "capture/status":
      return {
        connection: deps.linkState(),
        session: await deps.capture.current(),
        outbox: await (await deps.outbox()).status(),
        last_control: await deps.lastControl(),
        last_failure: await deps.lastFailure(),
      } satisfies CaptureStatusReply;
    case "run/allow-in-tab":
      await deps.inTabRuns.set(request.allowed);
      return tabRunAccess(deps, 0);
    case "run/tab-access":
      return tabRunAccess(deps, request.timeout_ms);
    default:
      return assertNever(request);
  }
}

async function tabRunAccess(deps: PanelRequestDeps, timeoutMs: number): Promise<TabRunAccessReply> {
  const connection = timeoutMs > 0 ? await deps.ensureConnected(timeoutMs) : deps.linkState();
  const allowed = await deps.inTabRuns.allowed();
  const debuggerAvailable = deps.hasDebugger();
  const recordingActive = isActiveCapture(await deps.capture.current());
  const runActive = deps.runActive();
  return {
    ready: connection === "connected" && allowed && debuggerAvailable && !recordingActive && !runActive,
    connection,
    in_tab_allowed: allowed,
    debugger_available: debuggerAvailable,
    recording_active: recordingActive,
    run_active: runActive,
  };
}

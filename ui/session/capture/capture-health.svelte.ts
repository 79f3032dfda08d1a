import type { CaptureStatusReply } from "../../../shared/observation/panel-messages";
import type { PanelBrowser } from "../../../shared/observation/panel-browser";

export interface CaptureWarning {
  id: string;
  text: string;
  tone: "warn" | "error";
}

/**
 * What the extension's own half says about a capture, in words — only what needs attention:
 * its link to the agent, the outbox filling up or refusing events, a keyboard or in-page control
 * that failed, its own last failure.
 */
export function captureWarnings(status: CaptureStatusReply | null, capturing: boolean): CaptureWarning[] {
  if (status === null) {
    return capturing ? [{ id: "background", text: "The extension's background is not answering; the capture may not be recorded.", tone: "error" }] : [];
  }
  const warnings: CaptureWarning[] = [];
  // "connecting" is a normal moment of the link; it only matters once events pile up behind it.
  const linkDown = status.connection === "connecting" ? status.outbox.queued > 0 : status.connection !== "connected";
  if (capturing && linkDown) {
    const why = status.connection === "token_rejected" ? "the agent refused its token — pair again" : `its link is ${status.connection}`;
    warnings.push({ id: "link", text: `The extension cannot deliver events right now (${why}). They wait in its outbox.`, tone: "warn" });
  }
  if (status.outbox.near_full) {
    warnings.push({
      id: "outbox",
      text: `The extension's outbox is nearly full (${status.outbox.queued} of ${status.outbox.capacity} events waiting). Keep the agent running so they can be delivered.`,
      tone: "warn",
    });
  }
  if (status.outbox.refused > 0) {
    warnings.push({
      id: "refused",
      text: `${status.outbox.refused} events were refused because the outbox was full; they are not in the recording.`,
      tone: "error",
    });
  }
  if (status.last_control !== null && !status.last_control.reply.ok) {
    warnings.push({
      id: "control",
      text: `The last ${status.last_control.control.replace("-", " ")} from the keyboard or the page did not work: ${status.last_control.reply.message ?? status.last_control.reply.code ?? "unknown reason"}.`,
      tone: "warn",
    });
  }
  if (status.last_failure !== null) {
    warnings.push({ id: "failure", text: `The extension reported a problem (${status.last_failure.where}): ${status.last_failure.message}`, tone: "warn" });
  }
  return warnings;
}

/** Polls the extension's background for its capture status while the panel is open. */
export class CaptureHealthState {
  status = $state.raw<CaptureStatusReply | null>(null);
  checked = $state(false);
  readonly #browser: PanelBrowser;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(browser: PanelBrowser) {
    this.#browser = browser;
  }

  async check(): Promise<void> {
    this.status = await this.#browser.captureStatus().catch(() => null);
    this.checked = true;
  }

  watch(everyMs = 3000): void {
    void this.check();
    this.#timer ??= setInterval(() => void this.check(), everyMs);
  }

  destroy(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

import type { ErrorGuard } from "../common/error-guard";

/**
 * The in-page observation indicator (DESIGN §4: observation is visible): a small fixed pill with
 * "Recording"/"Paused", Pause/Resume and Stop, so capture can be stopped without the side panel.
 * It lives in a closed shadow root under <html>, styled by an adopted stylesheet (no inline <style>
 * for a page's CSP to refuse), so it neither takes page styles nor changes the page's layout; its
 * own events do not reach the page's bubbling listeners, and the observers skip it.
 */

export type IndicatorState = "recording" | "paused";
export type IndicatorAction = "pause" | "resume" | "stop";

export interface Indicator {
  show(state: IndicatorState): void;
  remove(): void;
  /** True for the indicator's host: events whose path contains it are ours, not the user's work. */
  isOwnNode(node: EventTarget): boolean;
}

export const INDICATOR_TAG = "elnor-learn-indicator";

const HOST_STYLE = [
  "all: initial",
  "position: fixed",
  "right: 12px",
  "bottom: 12px",
  "z-index: 2147483647",
  "display: block",
  "width: auto",
  "height: auto",
  "margin: 0",
  "padding: 0",
  "border: 0",
  "contain: layout style",
]
  .map((rule) => `${rule} !important`)
  .join("; ");

const SHADOW_CSS = `
:host { all: initial; }
@media print { :host { display: none !important; } }
.pill { display: flex; align-items: center; gap: 6px; padding: 4px 6px 4px 10px; border-radius: 999px;
  background: #1f1f1f; color: #fff; font: 500 12px/1.2 system-ui, sans-serif; box-shadow: 0 1px 4px rgb(0 0 0 / 0.35); }
.dot { width: 8px; height: 8px; border-radius: 50%; background: #e5322d; }
.pill[data-state="paused"] .dot { background: #f0b400; }
button { font: inherit; color: inherit; background: #3a3a3a; border: 1px solid #5a5a5a; border-radius: 999px;
  padding: 2px 8px; cursor: pointer; }
button:hover { background: #4a4a4a; }
button:focus-visible { outline: 2px solid #8ab4f8; outline-offset: 1px; }
`;

/** Events the page must not see coming out of the pill (it would take them for clicks on its own content). */
const CONTAINED_EVENTS = ["click", "dblclick", "pointerdown", "pointerup", "mousedown", "mouseup", "keydown", "keyup", "input", "focusin", "focusout"];

export function createIndicator(options: { document: Document; guard: ErrorGuard; onAction: (action: IndicatorAction) => void }): Indicator {
  const { document, guard, onAction } = options;
  const host = document.createElement(INDICATOR_TAG);
  host.setAttribute("style", HOST_STYLE);
  const shadow = host.attachShadow({ mode: "closed" });
  const sheet = new (document.defaultView?.CSSStyleSheet ?? CSSStyleSheet)();
  sheet.replaceSync(SHADOW_CSS);
  shadow.adoptedStyleSheets = [sheet];

  const pill = document.createElement("div");
  pill.className = "pill";
  pill.setAttribute("role", "region");
  pill.setAttribute("aria-label", "Ability Learning observation");
  const dot = document.createElement("span");
  dot.className = "dot";
  dot.setAttribute("aria-hidden", "true");
  const status = document.createElement("span");
  status.setAttribute("role", "status");
  const pauseButton = document.createElement("button");
  pauseButton.type = "button";
  const stopButton = document.createElement("button");
  stopButton.type = "button";
  stopButton.textContent = "Stop";
  stopButton.setAttribute("aria-label", "Stop recording");
  pill.append(dot, status, pauseButton, stopButton);
  shadow.append(pill);

  let state: IndicatorState = "recording";
  pauseButton.addEventListener(
    "click",
    guard.wrap(() => onAction(state === "paused" ? "resume" : "pause")),
  );
  stopButton.addEventListener(
    "click",
    guard.wrap(() => onAction("stop")),
  );
  for (const type of CONTAINED_EVENTS) shadow.addEventListener(type, (event) => event.stopPropagation());

  return {
    show(next) {
      state = next;
      pill.dataset.state = next;
      status.textContent = next === "paused" ? "Paused" : "Recording";
      pauseButton.textContent = next === "paused" ? "Resume" : "Pause";
      pauseButton.setAttribute("aria-label", next === "paused" ? "Resume recording" : "Pause recording");
      // Under <html>, not <body>: pages that rebuild their body keep it, and body selectors never count it.
      if (!host.isConnected) document.documentElement.append(host);
    },
    remove() {
      host.remove();
    },
    isOwnNode(node) {
      return node === host;
    },
  };
}

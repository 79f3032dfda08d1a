import { DEFAULT_ACTION_TITLE, type BadgeSpec } from "../capture/capture-badge";

/**
 * What shows that the assistant is acting in a lent tab (issue #21): the toolbar badge `RUN`
 * (distinct from the observation's REC/ARM/II) and a small bar in the page with Stop.
 *
 * The bar is put in through the tab's own debugger session, in an isolated world, not by a
 * content script: an in-tab run holds `debugger` but need not hold host access to the site
 * (that is asked per demonstration, for recording). Its Stop calls a binding that exists only in
 * that world, so the page can neither press it for the person nor see the call; the bar lives in
 * a closed shadow root under <html>, styled by an adopted stylesheet (no inline <style> for a CSP
 * to refuse), and its clicks do not reach the page's listeners.
 */

export const RUN_BADGE_COLOR = "#7b1fa2";

export function runBadge(label: string): BadgeSpec {
  return { text: "RUN", color: RUN_BADGE_COLOR, title: `${DEFAULT_ACTION_TITLE}: the assistant is acting in a tab (${label.slice(0, 80)})` };
}

/** The isolated world the bar lives in, and the binding its Stop calls. */
export const RUN_WORLD = "elnor-run-indicator";
export const RUN_STOP_BINDING = "__elnorRunStop";
export const RUN_INDICATOR_TAG = "elnor-run-indicator";
/** The Stop button's accessible name. Specific, so a flow's own "Stop" button is never confused with it. */
export const RUN_STOP_LABEL = "Stop the assistant";

/** The bar as source text for `Page.addScriptToEvaluateOnNewDocument` and `Runtime.evaluate`; the label is passed as data. */
export function runIndicatorScript(label: string): string {
  return `(() => {
  if (window.top !== window) return;
  const TAG = ${JSON.stringify(RUN_INDICATOR_TAG)};
  const put = () => {
    const root = document.documentElement;
    if (root === null || root.querySelector(":scope > " + TAG) !== null) return;
    const host = document.createElement(TAG);
    host.setAttribute("style", "all: initial !important; position: fixed !important; left: 12px !important; bottom: 12px !important; z-index: 2147483647 !important; display: block !important; margin: 0 !important; padding: 0 !important; border: 0 !important;");
    const shadow = host.attachShadow({ mode: "closed" });
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(\`:host { all: initial; }
@media print { :host { display: none !important; } }
.bar { display: flex; align-items: center; gap: 8px; padding: 4px 6px 4px 10px; border-radius: 999px; background: #2b1433;
  color: #fff; font: 500 12px/1.2 system-ui, sans-serif; box-shadow: 0 1px 4px rgb(0 0 0 / 0.35); max-width: 420px; }
.dot { flex: none; width: 8px; height: 8px; border-radius: 50%; background: ${RUN_BADGE_COLOR}; box-shadow: 0 0 0 2px #e1bee7; }
.text { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
button { flex: none; font: inherit; color: inherit; background: #b3261e; border: 0; border-radius: 999px; padding: 3px 10px; cursor: pointer; }
button:focus-visible { outline: 2px solid #8ab4f8; outline-offset: 1px; }\`);
    shadow.adoptedStyleSheets = [sheet];
    const bar = document.createElement("div");
    bar.className = "bar";
    bar.setAttribute("role", "status");
    const dot = document.createElement("span");
    dot.className = "dot";
    const text = document.createElement("span");
    text.className = "text";
    text.textContent = "Assistant is acting: " + ${JSON.stringify(label)};
    const stop = document.createElement("button");
    stop.type = "button";
    stop.textContent = "Stop";
    stop.setAttribute("aria-label", ${JSON.stringify(RUN_STOP_LABEL)});
    stop.addEventListener("click", () => {
      stop.disabled = true;
      text.textContent = "Stopping…";
      globalThis[${JSON.stringify(RUN_STOP_BINDING)}]("stop");
    });
    bar.append(dot, text, stop);
    shadow.append(bar);
    for (const type of ["click", "mousedown", "mouseup", "pointerdown", "pointerup", "keydown", "keyup"]) {
      host.addEventListener(type, (event) => event.stopPropagation());
    }
    root.append(host);
  };
  if (document.documentElement !== null) put();
  else document.addEventListener("readystatechange", put, { once: true });
})()`;
}

/** Takes the bar off the page (main world: the host element is plain DOM). */
export const REMOVE_RUN_INDICATOR = `document.querySelectorAll(${JSON.stringify(RUN_INDICATOR_TAG)}).forEach((node) => node.remove())`;

import { COACHING_HIGHLIGHT_TAG, type CoachingHighlight, type CoachingRead } from "../../shared/observation/coaching-read";
import type { PrivacyBoundary } from "./privacy/privacy-boundary";

/**
 * What the Coaching Agent (issue #16) reads of a recorded page, read here in the content script's
 * isolated world and handed back over the extension's own messaging (shared/observation/coaching-read.ts,
 * issue #30): the visible controls in reading order, with the role and name a screen reader would give
 * them, and a few facts that show whether a step changed the page. Never a field's value: fields are
 * named by their label only. Every string passes the privacy boundary before it leaves this function,
 * so a page echoing a typed value ("canary ×", "Results for canary", `#/search/canary`) gives `•••`.
 * The page is neither asked nor answered anything: nothing here dispatches an event or writes to the
 * DOM, except the highlight the agent asked for.
 */
export function readForCoaching(options: {
  document: Document;
  boundary: PrivacyBoundary;
  highlight: CoachingHighlight | null;
  /** The controls of the previous read, in its reading order. */
  previous: readonly Element[];
}): { read: CoachingRead; elements: Element[] } {
  const { document, boundary, highlight, previous } = options;
  const elements: Element[] = [];
  const controls: Array<{ role: string; name: string }> = [];
  const headings: string[] = [];
  const states: string[] = [];
  for (const element of document.querySelectorAll(READ_SELECTOR)) {
    if (!visible(element)) continue;
    if (/^h[1-3]$/.test(element.localName)) {
      headings.push(boundary.text(clean(element.textContent)));
      continue;
    }
    const role = roleOf(element);
    if (role === "" || role === "presentation" || role === "none") continue;
    // A text field is named by its label only; a contenteditable's own text is what was typed.
    const raw =
      role === "textbox" && !(element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement)
        ? clean(element.getAttribute("aria-label"))
        : nameOf(document, element, role);
    const name = boundary.text(raw);
    elements.push(element);
    controls.push({ role, name });
    for (const attribute of ["aria-pressed", "aria-expanded", "aria-selected", "aria-current"]) {
      const value = element.getAttribute(attribute);
      if (value !== null) states.push(boundary.text(`${role}:${name}:${attribute}=${value}`));
    }
    if (element instanceof HTMLInputElement && (element.type === "checkbox" || element.type === "radio"))
      states.push(`${role}:${name}:checked=${element.checked}`);
  }
  // The frame goes on the very element the agent chose from the previous read, when it is still at
  // that place: decided by identity, never by comparing scrubbed names, so whether it is drawn says
  // nothing about what was typed.
  const target = highlight === null ? undefined : elements[highlight.order];
  if (highlight !== null && target !== undefined && previous[highlight.order] === target) drawHighlight(document, target, boundary.text(highlight.label));
  const { location } = document;
  const read: CoachingRead = {
    controls,
    facts: { address: boundary.url(location.origin + location.pathname + location.hash), title: boundary.text(clean(document.title)), headings, states },
  };
  return { read, elements };
}

/** Takes the agent's highlight off the page. */
export function clearCoachingHighlight(document: Document): void {
  document.querySelectorAll(COACHING_HIGHLIGHT_TAG).forEach((node) => node.remove());
}

const READ_SELECTOR = "a[href], button, summary, select, input, textarea, [role], h1, h2, h3";

function clean(text: string | null | undefined): string {
  return (text ?? "").replace(/\s+/g, " ").trim().slice(0, 200);
}

function roleOf(element: Element): string {
  const explicit = element.getAttribute("role");
  if (explicit !== null && explicit.trim() !== "") return explicit.trim().split(/\s+/)[0]!.toLowerCase();
  const tag = element.localName;
  if (tag === "a" && element.hasAttribute("href")) return "link";
  if (tag === "button" || tag === "summary") return "button";
  if (tag === "select") return "combobox";
  if (tag === "textarea") return "textbox";
  if (tag === "input") {
    const type = (element.getAttribute("type") ?? "text").toLowerCase();
    if (["button", "submit", "reset", "image"].includes(type)) return "button";
    if (type === "checkbox") return "checkbox";
    if (type === "radio") return "radio";
    return "textbox";
  }
  return "";
}

/** Name from aria-label, aria-labelledby, a label, the text, or the title; a field's value never. */
function nameOf(document: Document, element: Element, role: string): string {
  const label = element.getAttribute("aria-label");
  if (label !== null && clean(label) !== "") return clean(label);
  const labelledBy = element.getAttribute("aria-labelledby");
  if (labelledBy !== null) {
    const text = labelledBy
      .split(/\s+/)
      .map((id) => clean(document.getElementById(id)?.textContent))
      .join(" ")
      .trim();
    if (text !== "") return text;
  }
  if (element instanceof HTMLInputElement || element instanceof HTMLSelectElement || element instanceof HTMLTextAreaElement) {
    const labels =
      element.labels === null
        ? ""
        : [...element.labels]
            .map((entry) => clean(entry.textContent))
            .join(" ")
            .trim();
    if (labels !== "") return labels;
    // A button input's caption is its value; any other field's value is what was typed, never read.
    if (element instanceof HTMLInputElement && role === "button") return clean(element.value || element.getAttribute("alt"));
    return clean(element.getAttribute("title") ?? element.getAttribute("placeholder"));
  }
  const text = clean((element as HTMLElement).innerText ?? element.textContent);
  if (text !== "") return text;
  const image = element.querySelector("img[alt]");
  return clean(image?.getAttribute("alt") ?? element.getAttribute("title"));
}

/** Rendered and not hidden: the controls a person can see (those shown only on hover are left out). */
function visible(element: Element): boolean {
  const box = element.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) return false;
  return typeof element.checkVisibility === "function" ? element.checkVisibility({ opacityProperty: true, visibilityProperty: true }) : true;
}

/**
 * A frame around the proposed control and what the agent is about to do, in a closed shadow root
 * under <html> that takes no clicks, as the in-page bar of in-tab runs.
 */
function drawHighlight(document: Document, element: Element, label: string): void {
  clearCoachingHighlight(document);
  const view = document.defaultView;
  if (view === null) return;
  const box = element.getBoundingClientRect();
  const host = document.createElement(COACHING_HIGHLIGHT_TAG);
  const place = `all: initial !important; position: absolute !important; pointer-events: none !important; z-index: 2147483646 !important; display: block !important; left: ${Math.round(box.left + view.scrollX - 4)}px !important; top: ${Math.round(box.top + view.scrollY - 4)}px !important; width: ${Math.round(box.width + 8)}px !important; height: ${Math.round(box.height + 8)}px !important;`;
  host.setAttribute("style", place);
  const shadow = host.attachShadow({ mode: "closed" });
  const sheet = new view.CSSStyleSheet();
  sheet.replaceSync(`:host { all: initial; } @media print { :host { display: none !important; } }
.frame { position: absolute; inset: 0; border: 3px solid #1a73e8; border-radius: 6px; box-shadow: 0 0 0 4px rgb(26 115 232 / 0.25); }
.label { position: absolute; left: 0; top: calc(100% + 4px); white-space: nowrap; max-width: 360px; overflow: hidden; text-overflow: ellipsis;
  background: #0b3d91; color: #fff; font: 500 12px/1.3 system-ui, sans-serif; padding: 3px 8px; border-radius: 4px; box-shadow: 0 1px 4px rgb(0 0 0 / 0.3); }`);
  shadow.adoptedStyleSheets = [sheet];
  const frame = document.createElement("div");
  frame.className = "frame";
  const text = document.createElement("div");
  text.className = "label";
  text.textContent = label;
  shadow.append(frame, text);
  document.documentElement.append(host);
}

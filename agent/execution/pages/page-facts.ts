import type { Page } from "puppeteer-core";
import { reachableFrames } from "./frame-reach";

/**
 * What the rehearsal reads of a live page to check issue #14's checkpoints: lists and their items'
 * text, controls with a state and the row they sit in, short texts with numbers. The same kinds of
 * thing the capture's snapshot lists (extension/observation/snapshot-extras.ts), read afresh here
 * and with the full text (the rehearsal's own test values, never a captured value).
 */
export interface PageFacts {
  lists: Array<{ name: string; role: string; items: string[] }>;
  toggles: Array<{ name: string; role: string; state: string; context: string }>;
  texts: string[];
}

/**
 * Runs in the page, as source text (a function compiled by tsx carries helpers the page lacks).
 * Walks open shadow roots, as the capture does.
 */
const PAGE_FACTS_SCRIPT = `(() => {
  const LISTS = "ul, ol, table, [role=list], [role=listbox], [role=grid], [role=table], [role=tree]";
  const ITEMS = "li, tr, [role=listitem], [role=option], [role=row], [role=treeitem]";
  const TOGGLES = "input[type=checkbox], input[type=radio], [role=checkbox], [role=radio], [role=switch], [role=menuitemcheckbox], [aria-pressed], [aria-expanded], [role=tab][aria-selected], [aria-sort]";
  const roots = [document];
  for (let i = 0; i < roots.length && i < 500; i += 1) for (const el of roots[i].querySelectorAll("*")) if (el.shadowRoot) roots.push(el.shadowRoot);
  const visible = (el) => (typeof el.checkVisibility === "function" ? el.checkVisibility() : true);
  const clean = (text) => (text || "").replace(/\\s+/g, " ").trim();
  const textOf = (node) => {
    const parts = [];
    const visit = (n) => {
      if (n.nodeType === 3) { parts.push(n.nodeValue); return; }
      if (n.nodeType !== 1 && n.nodeType !== 11) return;
      if (n.nodeType === 1) {
        if (["SCRIPT", "STYLE", "TEMPLATE", "INPUT", "TEXTAREA", "SELECT"].includes(n.tagName)) return;
        if (n.getAttribute("aria-hidden") === "true" || n.hidden) return;
        const label = n !== node && n.getAttribute("aria-label");
        if (label) { parts.push(" " + label + " "); return; }
        if (n.tagName === "SLOT") { const assigned = n.assignedNodes({ flatten: true }); if (assigned.length) { assigned.forEach(visit); return; } }
        if (n.shadowRoot) { parts.push(" "); n.shadowRoot.childNodes.forEach(visit); parts.push(" "); return; }
      }
      parts.push(" "); n.childNodes.forEach(visit); parts.push(" ");
    };
    visit(node);
    return clean(parts.join(""));
  };
  const byIds = (el, ids) => ids.split(/\\s+/).map((id) => { const ref = el.getRootNode().getElementById ? el.getRootNode().getElementById(id) : document.getElementById(id); return ref ? textOf(ref) : ""; }).join(" ");
  const nameOf = (el) => {
    const label = el.getAttribute("aria-label");
    if (label && label.trim()) return clean(label);
    const by = el.getAttribute("aria-labelledby");
    if (by) { const text = clean(byIds(el, by)); if (text) return text; }
    if (el.labels && el.labels.length) return clean([...el.labels].map(textOf).join(" "));
    const wrap = el.closest && el.closest("label");
    if (wrap) return textOf(wrap);
    if (el.tagName !== "INPUT") { const text = textOf(el); if (text) return text; }
    return clean(el.getAttribute("title") || "");
  };
  const roleOf = (el) => {
    const explicit = (el.getAttribute("role") || "").trim().split(/\\s+/)[0];
    if (explicit) return explicit.toLowerCase();
    if (el.tagName === "INPUT") return el.type === "radio" ? "radio" : el.type === "checkbox" ? "checkbox" : "textbox";
    if (el.tagName === "TH") return "columnheader";
    if (el.tagName === "BUTTON" || el.tagName === "SUMMARY") return "button";
    if (el.tagName === "UL" || el.tagName === "OL") return "list";
    if (el.tagName === "TABLE") return "table";
    if (el.tagName === "A") return "link";
    return "generic";
  };
  const stateOf = (el) => {
    const sort = el.getAttribute("aria-sort");
    if (sort !== null) return sort === "none" ? "not sorted" : "sorted " + sort;
    if (el.tagName === "INPUT" && (el.type === "checkbox" || el.type === "radio")) return el.indeterminate ? "mixed" : el.checked ? "checked" : "unchecked";
    const checked = el.getAttribute("aria-checked");
    if (checked !== null) return checked === "true" ? "checked" : checked === "mixed" ? "mixed" : "unchecked";
    const pressed = el.getAttribute("aria-pressed");
    if (pressed !== null) return pressed === "true" ? "pressed" : "not pressed";
    const selected = el.getAttribute("aria-selected");
    if (selected !== null) return selected === "true" ? "selected" : "not selected";
    return el.getAttribute("aria-expanded") === "true" ? "expanded" : "collapsed";
  };
  const listName = (list) => {
    const by = list.getAttribute("aria-labelledby");
    const own = clean(list.getAttribute("aria-label") || "") || (by ? clean(byIds(list, by)) : "");
    if (own) return own;
    const caption = list.querySelector(":scope > caption");
    if (caption) return textOf(caption);
    let node = list;
    for (let depth = 0; node && depth < 4; depth += 1, node = node.parentElement) {
      for (let sib = node.previousElementSibling; sib; sib = sib.previousElementSibling) {
        const heading = sib.matches("h1, h2, h3, h4, h5, h6, [role=heading], label, legend") ? sib : sib.querySelector("h1, h2, h3, h4, h5, h6, [role=heading]");
        if (heading) return textOf(heading);
      }
    }
    return "";
  };
  const itemsOf = (list) => {
    const items = [];
    const take = (parent) => {
      for (const child of parent.children) {
        if (["TEMPLATE", "SCRIPT", "STYLE"].includes(child.tagName)) continue;
        if (child.tagName === "TBODY") { take(child); continue; }
        if (child.tagName === "THEAD" || child.tagName === "TFOOT") continue;
        if (child.matches(ITEMS) || list.tagName === "UL" || list.tagName === "OL") items.push(child);
      }
    };
    take(list);
    return items.filter(visible);
  };
  const lists = [];
  for (const root of roots) for (const list of root.querySelectorAll(LISTS)) {
    if ((list.parentElement && list.parentElement.closest(ITEMS)) || !visible(list)) continue;
    lists.push({ name: listName(list), role: roleOf(list), items: itemsOf(list).slice(0, 300).map(textOf) });
  }
  const contextOf = (el) => {
    if (el.tagName === "TH" || el.matches("[role=columnheader], [role=rowheader]")) return "";
    let node = el;
    for (let depth = 0; node && depth < 12; depth += 1) {
      const parent = node.parentElement || (node.getRootNode() && node.getRootNode().host) || null;
      if (!parent) return "";
      if (parent.matches(ITEMS) || (parent.parentElement && parent.parentElement.matches("ul, ol, [role=list]"))) return textOf(parent);
      node = parent;
    }
    return "";
  };
  const toggles = [];
  for (const root of roots) for (const el of root.querySelectorAll(TOGGLES)) {
    if (toggles.length >= 400) break;
    if (!visible(el) && !(el.tagName === "INPUT" && el.parentElement && visible(el.parentElement))) continue;
    toggles.push({ name: nameOf(el), role: roleOf(el), state: stateOf(el), context: contextOf(el) });
  }
  const texts = [];
  for (const root of roots) {
    const start = root.body || root;
    if (!start) continue;
    const walker = document.createTreeWalker(start, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node && texts.length < 400; node = walker.nextNode()) {
      if (!/\\d/.test(node.nodeValue || "")) continue;
      let holder = node.parentElement;
      while (holder && ["STRONG", "B", "EM", "I", "SMALL", "SPAN", "MARK", "CODE", "DATA", "TIME", "ABBR"].includes(holder.tagName) && holder.parentElement && !["BODY", "HTML", "MAIN", "SECTION", "ARTICLE", "FORM", "UL", "OL", "TABLE"].includes(holder.parentElement.tagName) && holder.parentElement.childElementCount <= 3 && textOf(holder.parentElement).length <= 60) holder = holder.parentElement;
      if (!holder || !visible(holder)) continue;
      const text = textOf(holder);
      if (text && text.length <= 120 && !texts.includes(text)) texts.push(text);
    }
  }
  return { lists, toggles, texts };
})()`;

export async function readPageFacts(page: Page): Promise<PageFacts> {
  const facts: PageFacts = { lists: [], toggles: [], texts: [] };
  // Frames of another site are not read (frame-reach.ts): their lists are not this page's evidence.
  for (const frame of (await reachableFrames(page)).frames) {
    const read = (await frame.evaluate(PAGE_FACTS_SCRIPT).catch(() => undefined)) as Partial<PageFacts> | undefined;
    if (read === undefined) continue;
    facts.lists.push(...(read.lists ?? []));
    facts.toggles.push(...(read.toggles ?? []));
    facts.texts.push(...(read.texts ?? []));
  }
  return facts;
}

/** A text with its numbers replaced by `#` (compiler/checkpoints/page-diff.ts `numberPattern`). */
export function numberShape(text: string): string {
  return text.replace(/\d+(?:[.,]\d+)*/g, "#");
}

export function firstNumberIn(text: string): number | undefined {
  const match = /\d+/.exec(text);
  return match === null ? undefined : Number(match[0]);
}

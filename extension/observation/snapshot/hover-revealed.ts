import type { Names } from "../names/name-cache";

/**
 * Which of the snapshot's buttons and links are only there for whoever hovers or opens something
 * (issue #14, #35): shown by a rule on an ancestor's hover or focus, or inside a closed menu. Never
 * evidence that a step happened.
 */

type Root = Document | ShadowRoot;

const MAX_HOVER_REVEALED = 40;
/** Pseudo-classes that show or hide things while the pointer is over, or focus is inside, an ancestor. */
const POINTER_STATE = /:(hover|focus-within|focus-visible|focus)\b/g;
const VISIBILITY_PROPERTIES = ["display", "visibility", "opacity"] as const;

export interface HoverRules {
  /** Selectors (with the pointer states removed) of rules that show or hide descendants on hover or focus. */
  selectors(roots: readonly Root[]): string[];
}

/** Remembers each sheet's hover rules while its rule count stays (as state-styles.ts does). */
export function createHoverRules(): HoverRules {
  const known = new WeakMap<CSSStyleSheet, { ruleCount: number; selectors: string[] }>();
  const fromRules = (rules: CSSRuleList, into: string[], depth: number): void => {
    for (const rule of rules) {
      const style = rule as Partial<CSSStyleRule & CSSGroupingRule>;
      if (
        typeof style.selectorText === "string" &&
        style.style !== undefined &&
        VISIBILITY_PROPERTIES.some((property) => style.style?.getPropertyValue(property) !== "")
      ) {
        for (const selector of style.selectorText.split(",")) {
          const at = selector.search(POINTER_STATE);
          // Only a state of an ancestor (`.row:hover .remove`): a button's own :hover changes its look, not whether it is there.
          if (at >= 0 && /[\s>+~]/.test(selector.slice(at).trim())) into.push(selector.replace(POINTER_STATE, "").trim());
        }
      }
      if (style.cssRules !== undefined && depth < 6) fromRules(style.cssRules, into, depth + 1);
    }
  };
  const ofSheet = (sheet: CSSStyleSheet): string[] => {
    let rules: CSSRuleList;
    try {
      rules = sheet.cssRules;
    } catch {
      return []; // another origin's sheet cannot be read
    }
    const remembered = known.get(sheet);
    if (remembered !== undefined && remembered.ruleCount === rules.length) return remembered.selectors;
    const selectors: string[] = [];
    fromRules(rules, selectors, 0);
    known.set(sheet, { ruleCount: rules.length, selectors });
    return selectors;
  };
  return {
    selectors(roots) {
      const all: string[] = [];
      for (const root of roots) {
        for (const sheet of root.styleSheets) all.push(...ofSheet(sheet));
        for (const sheet of root.adoptedStyleSheets ?? []) all.push(...ofSheet(sheet));
      }
      return all;
    },
  };
}

export function readHoverRevealed(
  roots: readonly Root[],
  controls: (root: Root) => Iterable<Element>,
  names: Names,
  clean: (text: string, max?: number) => string,
  hoverRules: HoverRules,
  toggles: (root: Root) => Iterable<Element>,
): string[] {
  const hover_revealed: string[] = [];
  const selectors = hoverRules.selectors(roots);
  const collapsed = collapsedIds(roots, toggles);
  // Most pages have neither hover rules nor closed menus: their controls are not walked at all.
  const closedMenus = collapsed.size > 0 || roots.some((root) => root.querySelector("details:not([open])") !== null);
  for (const root of selectors.length > 0 || closedMenus ? roots : []) {
    for (const element of controls(root)) {
      if (hover_revealed.length >= MAX_HOVER_REVEALED) break;
      const revealed =
        (closedMenus && inClosedMenu(element, collapsed)) ||
        selectors.some((selector) => {
          try {
            return selector !== "" && element.matches(selector);
          } catch {
            return false;
          }
        });
      const name = revealed ? clean(names.name(element)) : "";
      if (name !== "" && !hover_revealed.includes(name)) hover_revealed.push(name);
    }
  }
  return hover_revealed;
}

/**
 * A control in a menu that is closed: inside a `<details>` that is not open (not its summary), or
 * inside what a collapsed button (`aria-expanded="false"`) controls. Like one shown on hover, it is
 * there for whoever opens the menu (an account menu's "Log out", issue #35), and never evidence.
 */
function inClosedMenu(element: Element, collapsed: ReadonlySet<string>): boolean {
  const details = element.closest("details:not([open])");
  if (details !== null && element.closest("summary")?.parentElement !== details) return true;
  if (collapsed.size === 0) return false;
  for (let node: Element | null = element.parentElement; node !== null; node = node.parentElement) {
    if (node.id !== "" && collapsed.has(node.id)) return true;
  }
  return false;
}

/**
 * The ids of what collapsed buttons control (`aria-expanded="false"` with `aria-controls`). Every
 * element with `aria-expanded` is among the roots' `toggles` (snapshot-source.ts `TOGGLES`), which the
 * page index keeps: only they are looked at, not the whole page (issue #32). A set: their order does not matter.
 */
function collapsedIds(roots: readonly Root[], toggles: (root: Root) => Iterable<Element>): Set<string> {
  const ids = new Set<string>();
  for (const root of roots) {
    for (const opener of toggles(root)) {
      // What `[aria-expanded="false"][aria-controls]` matches (the value case-sensitively), in the page now.
      if (!opener.isConnected || opener.getAttribute("aria-expanded") !== "false") continue;
      const controls = opener.getAttribute("aria-controls");
      if (controls !== null) for (const id of controls.split(/\s+/)) if (id !== "") ids.add(id);
    }
  }
  return ids;
}

type Root = Document | ShadowRoot;

/**
 * How far a DOM change can reach the boxes of other elements, read from the page's style sheets
 * (snapshot-memo.ts remembers visibility only within that reach). Visibility (`checkVisibility()`:
 * whether the element has a box) follows CSS, and only rules that set `display`,
 * `content-visibility` or `all` count:
 * - "subtree": a change can only alter the boxes of the changed element and what is below it;
 * - "siblings": some rule selects on siblings or position (`+`, `~`, `:nth-child`, `:empty`…): a
 *   change reaches its parent's subtree;
 * - "everything": some rule follows what no DOM record announces — the pointer or focus (`:hover`,
 *   `:focus-within`), a control's state or value (`:checked`, `:invalid`: a property set by script
 *   fires nothing), a media feature other than the viewport's size (`prefers-color-scheme`), a
 *   container's size (`@container`) — or looks down (`:has()`), or a sheet cannot be read (another
 *   origin's).
 */

export type StyleReach = "subtree" | "siblings" | "everything";

/** Properties `checkVisibility()` follows (with `all`, which resets them). */
const BOX_PROPERTIES = ["display", "content-visibility", "all"] as const;
/**
 * Selectors whose match follows something no DOM record announces — the pointer, focus, the URL's
 * fragment, a control's state or value (a property set by script fires no record) — or that look
 * down the tree.
 */
const FAR_SELECTOR =
  /:(has|hover|focus|focus-within|focus-visible|active|target|target-within|popover-open|open|closed|modal|fullscreen|picture-in-picture|playing|paused|defined|state|checked|indeterminate|default|valid|invalid|user-valid|user-invalid|placeholder-shown|in-range|out-of-range|autofill|-webkit-autofill|blank)\b|:host-context\b/i;
/** Media features a resize (which the reader notices) can flip; a rule under any other (`prefers-color-scheme`, `hover`, `print`) may flip unannounced. */
const RESIZE_MEDIA = /^(?:\s|,|\b(?:and|or|not|only|screen|all)\b|\([^()]*\b(?:width|height|aspect-ratio|orientation)\b[^()]*\))*$/i;
/** Selectors whose match follows an element's siblings or its position among them. */
const SIBLING_SELECTOR =
  /[+~]|:(nth-child|nth-last-child|nth-of-type|nth-last-of-type|first-child|last-child|only-child|first-of-type|last-of-type|only-of-type|empty)\b/i;

const RANK: Record<StyleReach, number> = { subtree: 0, siblings: 1, everything: 2 };

export interface StyleSheets {
  /** How far a change may reach the boxes of other elements, from the roots' sheets, and whether the sheets changed since the last call. */
  read(roots: readonly Root[]): { reach: StyleReach; changed: boolean };
}

function isContainerRule(rule: CSSRule): boolean {
  return typeof CSSContainerRule === "function" && rule instanceof CSSContainerRule;
}

function isMediaRule(rule: CSSRule): rule is CSSMediaRule {
  return rule instanceof CSSMediaRule;
}

/** Whether any rule (nested ones included) sets a property `checkVisibility()` follows. */
function hasBoxRules(rules: CSSRuleList, depth: number): boolean {
  for (const rule of rules) {
    const style = rule as Partial<CSSStyleRule & CSSGroupingRule>;
    if (style.style !== undefined && BOX_PROPERTIES.some((property) => style.style?.getPropertyValue(property) !== "")) return true;
    if (style.cssRules !== undefined && depth < 8 && hasBoxRules(style.cssRules, depth + 1)) return true;
  }
  return false;
}

/** Reads the roots' sheets, remembering each sheet's answer while its rule count stays. */
export function createStyleSheets(): StyleSheets {
  const known = new WeakMap<CSSStyleSheet, { ruleCount: number; reach: StyleReach }>();
  let lastSheets: CSSStyleSheet[] = [];
  let lastCounts: number[] = [];

  const ofRules = (rules: CSSRuleList, depth: number): StyleReach => {
    let reach: StyleReach = "subtree";
    for (const rule of rules) {
      const style = rule as Partial<CSSStyleRule & CSSGroupingRule & CSSImportRule>;
      if (
        typeof style.selectorText === "string" &&
        style.style !== undefined &&
        BOX_PROPERTIES.some((property) => style.style?.getPropertyValue(property) !== "")
      ) {
        if (FAR_SELECTOR.test(style.selectorText)) return "everything";
        if (SIBLING_SELECTOR.test(style.selectorText)) reach = "siblings";
      }
      if (style.cssRules !== undefined && depth < 8) {
        const inner = ofRules(style.cssRules, depth + 1);
        // A container query follows a container's size, which any change may alter; a media query other than the viewport's size may flip unannounced.
        if (hasBoxRules(style.cssRules, depth + 1) && (isContainerRule(rule) || (isMediaRule(rule) && !RESIZE_MEDIA.test(rule.conditionText))))
          return "everything";
        if (inner === "everything") return inner;
        if (RANK[inner] > RANK[reach]) reach = inner;
      }
      if (style.styleSheet && depth < 8) {
        const imported = ofSheet(style.styleSheet, depth + 1).reach;
        if (imported === "everything") return imported;
        if (RANK[imported] > RANK[reach]) reach = imported;
      }
    }
    return reach;
  };

  const ofSheet = (sheet: CSSStyleSheet, depth: number): { reach: StyleReach; ruleCount: number } => {
    let rules: CSSRuleList;
    try {
      rules = sheet.cssRules;
    } catch {
      return { reach: "everything", ruleCount: -1 }; // another origin's sheet cannot be read
    }
    const remembered = known.get(sheet);
    if (remembered !== undefined && remembered.ruleCount === rules.length) return remembered;
    const answer = { ruleCount: rules.length, reach: ofRules(rules, depth) };
    known.set(sheet, answer);
    return answer;
  };

  return {
    read(roots) {
      const sheets: CSSStyleSheet[] = [];
      for (const root of roots) {
        for (const sheet of root.styleSheets) sheets.push(sheet);
        for (const sheet of root.adoptedStyleSheets ?? []) sheets.push(sheet);
      }
      let reach: StyleReach = "subtree";
      let changed = sheets.length !== lastSheets.length;
      const counts: number[] = [];
      for (let index = 0; index < sheets.length; index += 1) {
        const sheet = sheets[index]!;
        const answer = sheet.disabled ? { reach: "subtree" as const, ruleCount: -2 } : ofSheet(sheet, 0);
        counts.push(answer.ruleCount);
        if (!changed && (lastSheets[index] !== sheet || lastCounts[index] !== answer.ruleCount)) changed = true;
        if (RANK[answer.reach] > RANK[reach]) reach = answer.reach;
      }
      lastSheets = sheets;
      lastCounts = counts;
      return { reach, changed };
    },
  };
}

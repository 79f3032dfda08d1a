/**
 * Whether a page's style sheets select on the state of form controls (`:checked`, `:invalid`,
 * `:placeholder-shown`, …). Such a page can show or hide content when a box is checked or a field
 * is filled, without any DOM change (`input:checked ~ .menu { display: block }`), so a field's edit
 * or choice then counts as a page change for the snapshot. A sheet that cannot be read (another
 * origin's) is taken to select on state. Answers are remembered per sheet while its rule count stays.
 */

const STATE_PSEUDO_CLASS =
  /:(checked|indeterminate|valid|invalid|user-valid|user-invalid|placeholder-shown|in-range|out-of-range|autofill|-webkit-autofill)\b/i;

type Root = Document | ShadowRoot;

export interface StateStyles {
  /** True when a sheet of one of the roots (or one they import) selects on a form control's state. */
  selectOnState(roots: Iterable<Root>): boolean;
}

export function createStateStyles(): StateStyles {
  const known = new WeakMap<CSSStyleSheet, { ruleCount: number; selects: boolean }>();

  const sheetSelects = (sheet: CSSStyleSheet, depth: number): boolean => {
    let rules: CSSRuleList;
    try {
      rules = sheet.cssRules;
    } catch {
      return true; // another origin's sheet: it may
    }
    const remembered = known.get(sheet);
    if (remembered !== undefined && remembered.ruleCount === rules.length) return remembered.selects;
    const selects = rulesSelect(rules, depth);
    known.set(sheet, { ruleCount: rules.length, selects });
    return selects;
  };

  const rulesSelect = (rules: CSSRuleList, depth: number): boolean => {
    for (const rule of rules) {
      const styleRule = rule as Partial<CSSStyleRule & CSSGroupingRule & CSSImportRule>;
      if (typeof styleRule.selectorText === "string" && STATE_PSEUDO_CLASS.test(styleRule.selectorText)) return true;
      // @media, @supports, @layer, @container and nested rules hold rules of their own; @import a sheet.
      if (styleRule.cssRules !== undefined && rulesSelect(styleRule.cssRules, depth)) return true;
      if (styleRule.styleSheet && depth < 8 && sheetSelects(styleRule.styleSheet, depth + 1)) return true;
    }
    return false;
  };

  return {
    selectOnState(roots) {
      for (const root of roots) {
        for (const sheet of root.styleSheets) if (sheetSelects(sheet, 0)) return true;
        for (const sheet of root.adoptedStyleSheets ?? []) if (sheetSelects(sheet, 0)) return true;
      }
      return false;
    },
  };
}

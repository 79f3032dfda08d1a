/**
 * The visible text of a subtree, as accessible names read it (accessible-name.ts): open shadow roots
 * and slots followed, typed content left out (DESIGN §4).
 */

/** Enough text to name anything; stops the walk early on huge containers. */
const TEXT_BUDGET = 400;

const SKIPPED_TAGS = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "IFRAME", "OBJECT", "EMBED", "CANVAS"]);
/** Form controls: what is in them was typed or chosen, never page text. */
export const FIELD_TAGS = new Set(["INPUT", "SELECT", "TEXTAREA"]);

/**
 * Visible text of a subtree, following open shadow roots and slots. Form controls and editable
 * regions contribute nothing (their content is typed); images contribute their alt text.
 */
export function subtreeText(root: Node): string {
  const parts: string[] = [];
  let used = 0;
  const visit = (node: Node): void => {
    if (used >= TEXT_BUDGET) return;
    if (node.nodeType === Node.TEXT_NODE) {
      const data = node.nodeValue ?? "";
      parts.push(data);
      used += data.length;
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE && node.nodeType !== Node.DOCUMENT_FRAGMENT_NODE) return;
    if (node.nodeType === Node.ELEMENT_NODE) {
      const element = node as Element;
      if (node !== root) {
        if (SKIPPED_TAGS.has(element.tagName) || FIELD_TAGS.has(element.tagName)) return;
        if (element.getAttribute("aria-hidden") === "true" || element.hasAttribute("hidden")) return;
        const label = element.getAttribute("aria-label");
        if (label?.trim()) {
          parts.push(` ${label} `);
          used += label.length;
          return;
        }
      }
      if ((element as HTMLElement).isContentEditable) return;
      // Typed text outside a form field (field-masking.ts TYPED_ROLE_SELECTOR) is not page text.
      if (node !== root && isTypedRole(element)) return;
      if (element.tagName === "IMG") {
        parts.push(` ${element.getAttribute("alt") ?? ""} `);
        return;
      }
      if (element.tagName === "BR") parts.push(" ");
      if (element.tagName === "SLOT") {
        const assigned = (element as HTMLSlotElement).assignedNodes({ flatten: true });
        if (assigned.length > 0) {
          for (const child of assigned) visit(child);
          return;
        }
      }
      const shadow = (element as HTMLElement).shadowRoot;
      if (shadow) {
        for (const child of shadow.childNodes) visit(child);
        return;
      }
    }
    // Block boundaries separate words ("Sign" "up" in two divs is not "Signup").
    parts.push(" ");
    for (const child of node.childNodes) visit(child);
    parts.push(" ");
  };
  visit(root);
  return parts.join("").replace(/\s+/g, " ").trim();
}

function isTypedRole(element: Element): boolean {
  const role = element.getAttribute("role");
  return role === "textbox" || role === "searchbox" || (role === "combobox" && element.hasAttribute("aria-autocomplete"));
}

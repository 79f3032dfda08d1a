/** Open shadow roots: found by walking a tree (at attach time, and when the page adds nodes), else on an event's path. */

/** HTML elements `attachShadow` accepts besides custom elements (DOM, "valid shadow host name"). */
const SHADOW_HOST_TAGS = new Set([
  "article",
  "aside",
  "blockquote",
  "body",
  "div",
  "footer",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "main",
  "nav",
  "p",
  "section",
  "span",
]);

/** Whether the element could have a shadow root at all: asking `shadowRoot` of every added node or event target is a DOM call saved. */
export function mayHostShadowRoot(element: Element): boolean {
  return SHADOW_HOST_TAGS.has(element.localName) || element.localName.includes("-");
}

export function isShadowRoot(node: Node): node is ShadowRoot {
  return node.nodeType === Node.DOCUMENT_FRAGMENT_NODE && (node as ShadowRoot).host !== undefined;
}

/** The text of every text node in a document or shadow root, in tree order (a document's own `textContent` is null). */
export function rootText(root: Document | ShadowRoot): string {
  return (isShadowRoot(root) ? root.textContent : root.documentElement?.textContent) ?? "";
}

/** Open shadow roots under a root or element, nested ones included, in tree order of their hosts. */
export function openShadowRootsIn(root: Document | ShadowRoot | Element): ShadowRoot[] {
  const found: ShadowRoot[] = [];
  const visit = (scope: Node): void => {
    const document = scope.nodeType === Node.DOCUMENT_NODE ? (scope as Document) : scope.ownerDocument!;
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_ELEMENT);
    for (let node: Node | null = scope.nodeType === Node.ELEMENT_NODE ? scope : walker.nextNode(); node !== null; node = walker.nextNode()) {
      const shadow = (node as Element).shadowRoot;
      if (shadow) {
        found.push(shadow);
        visit(shadow);
      }
    }
  };
  visit(root);
  return found;
}

/** Shadow roots in the order a walk of the document meets them (a root's nested roots right after it). */
export function sortByHostOrder(shadows: ShadowRoot[]): ShadowRoot[] {
  if (shadows.length < 2) return shadows;
  const chainOf = (root: ShadowRoot): Element[] => {
    const chain: Element[] = [];
    for (let current: Node = root; isShadowRoot(current); current = current.host.getRootNode()) chain.unshift(current.host);
    return chain;
  };
  const chains = new Map(shadows.map((root) => [root, chainOf(root)]));
  return [...shadows].sort((a, b) => {
    const chainA = chains.get(a)!;
    const chainB = chains.get(b)!;
    for (let index = 0; index < Math.min(chainA.length, chainB.length); index += 1) {
      if (chainA[index] === chainB[index]) continue;
      return chainA[index]!.compareDocumentPosition(chainB[index]!) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
    }
    return chainA.length - chainB.length;
  });
}

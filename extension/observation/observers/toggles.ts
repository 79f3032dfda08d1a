import type { ObserverState } from "./observer-state";

/**
 * What changes the page without a DOM change the index sees: a popover opened or closed, a
 * <details> toggled (the `toggle` event, also inside shadow roots), the window resized (media
 * queries may show or hide content). Nothing is emitted: the page counts as changed for the next snapshot.
 */
export function observeToggles(state: ObserverState): () => void {
  const controller = new AbortController();
  const touch = (): void => state.index.touch();
  state.onRoot((root) => state.listen(root, "toggle", touch, controller.signal));
  state.listen(state.top, "resize", touch, controller.signal);
  return () => controller.abort();
}

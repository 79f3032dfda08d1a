import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import type { Names } from "../names/name-cache";
import { readTexts } from "./counter-texts";
import { createHoverRules, readHoverRevealed, type HoverRules } from "./hover-revealed";
import { readListSummaries } from "./list-counts";
import { NO_MEMO, type SnapshotMemo } from "./snapshot-memo";
import { LIST_CONTAINERS, TOGGLES } from "./snapshot-source";
import { readToggles } from "./toggle-states";

/**
 * The parts of a snapshot that say whether a sub-goal was reached (issue #14): lists and how many
 * items they show, controls with a state (checked, expanded, sorted), short texts with numbers (a
 * counter), and which buttons only show while the pointer is over something. No list item's text
 * and no name of a control inside a row leaves the page: a row often shows what was typed. Other
 * text goes through the caller's `clean` (scrub of typed values + length cut).
 */

type Root = Document | ShadowRoot;
type Extras = Required<Pick<PageSnapshot, "lists" | "toggles" | "texts" | "hover_revealed">>;

export interface ExtrasOptions {
  roots: readonly Root[];
  names: Names;
  clean: (text: string, max?: number) => string;
  /** Names of the buttons and links the snapshot lists, to tell which of them are hover-revealed. */
  controls: (root: Root) => Iterable<Element>;
  /** The lists and the controls with a state in a root, in tree order (the page index keeps them; default: queried). Ones no longer in the page are skipped. */
  elements?: (root: Root, kind: "lists" | "toggles") => Iterable<Element>;
  hoverRules?: HoverRules;
  /** What is remembered from the last read (begun by the caller); default: nothing, all read afresh. */
  memo?: SnapshotMemo;
}

const defaultHoverRules = createHoverRules();

const queried = (root: Root, kind: "lists" | "toggles"): Iterable<Element> => root.querySelectorAll(kind === "lists" ? LIST_CONTAINERS : TOGGLES);

export function readSnapshotExtras(options: ExtrasOptions): Extras {
  const { roots, names, clean, controls, elements = queried, hoverRules = defaultHoverRules, memo = NO_MEMO } = options;
  return {
    lists: readListSummaries(roots, (root) => elements(root, "lists"), names, clean, memo),
    toggles: readToggles(roots, (root) => elements(root, "toggles"), names, clean, memo),
    texts: readTexts(roots, memo, clean),
    hover_revealed: readHoverRevealed(roots, controls, names, clean, hoverRules, (root) => elements(root, "toggles")),
  };
}

import { fallbackStem } from "../../lookup/lexicon/wording-morphology";
import { STOP_WORDS, normalizeText } from "../../lookup/wording/wording-terms";
import type { CoachingStep, CoachingTarget } from "../../../shared/learning/sessions/coaching";

/**
 * Which control in the page fits a step said in the person's words (issue #16, Coaching Agent).
 * Deterministic: the words and the hint are normalized as the lookup normalizes requests
 * (agent/lookup/wording/wording-terms), each word is reduced to its stem, and every visible control is
 * scored by how much of the step its accessible name covers, how little else its name says, and
 * whether its role is the kind of control the words ask for ("open … page" a link, "press" a button).
 * Every score comes with the reasons a person reads in the side panel.
 */

/** A control the page shows, as its accessibility tree names it. */
export interface PageControl {
  role: string;
  name: string;
  /** Where it is in the page's reading order (ties go to the first). */
  order: number;
}

export interface ScoredControl {
  control: PageControl;
  target: CoachingTarget;
}

/** Below this, nothing fits well enough to propose: the agent asks to be shown. */
export const PROPOSE_MIN_SCORE = 0.45;

/** Verbs of acting on a page: they say what to do, not which control. */
const ACTION_WORDS = new Set([
  "open",
  "click",
  "press",
  "tap",
  "hit",
  "choose",
  "select",
  "pick",
  "use",
  "show",
  "view",
  "visit",
  "navigate",
  "find",
  "start",
  "then",
  "next",
  "first",
  "finally",
]);

/** Words that name the kind of control asked for, and the roles they mean. */
const ROLE_WORDS: ReadonlyArray<readonly [RegExp, readonly string[]]> = [
  [/^(page|section|screen|area|link|tab|visit|navigate|go|open|view)$/, ["link", "tab", "menuitem"]],
  [/^(button|press|submit|save|send|confirm|apply|click)$/, ["button", "menuitem"]],
  [/^(tick|check|checkbox|untick|uncheck|toggle|enable|disable)$/, ["checkbox", "switch", "radio"]],
  [/^(menu|option|item)$/, ["menuitem", "option", "link", "button"]],
];
const ROLE_NOUNS = new Set(["page", "section", "screen", "area", "link", "tab", "button", "checkbox", "menu", "option", "item", "field", "box"]);

/** Roles a person acts on by clicking: the only ones proposed. */
export const ACTIONABLE_ROLES = new Set([
  "link",
  "button",
  "tab",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "checkbox",
  "switch",
  "radio",
  "option",
  "treeitem",
  "combobox",
]);

interface Words {
  /** Stems of the words that say which control, with their weight (the step's 1, the hint's 0.5). */
  content: Map<string, { weight: number; said: string }>;
  roles: Set<string>;
  roleWords: string[];
}

const stem = (word: string) => fallbackStem(word);

function wordsOf(step: CoachingStep): Words {
  const content = new Map<string, { weight: number; said: string }>();
  const roles = new Set<string>();
  const roleWords: string[] = [];
  const read = (text: string, weight: number) => {
    for (const word of normalizeText(text).split(" ")) {
      if (word.length === 0) continue;
      for (const [pattern, names] of ROLE_WORDS) {
        if (pattern.test(word)) {
          names.forEach((role) => roles.add(role));
          if (!roleWords.includes(word)) roleWords.push(word);
        }
      }
      if (STOP_WORDS.has(word) || ACTION_WORDS.has(word) || ROLE_NOUNS.has(word)) continue;
      const key = stem(word);
      const known = content.get(key);
      if (known === undefined || known.weight < weight) content.set(key, { weight, said: word });
    }
  };
  read(step.words, 1);
  if (step.hint !== undefined) read(step.hint, 0.5);
  return { content, roles, roleWords };
}

function nameStems(name: string): string[] {
  return [
    ...new Set(
      normalizeText(name)
        .split(" ")
        .filter((word) => word.length > 0 && !STOP_WORDS.has(word))
        .map(stem),
    ),
  ];
}

/** Every actionable control scored against the step, best first; ties keep the page's order. */
export function scoreControls(step: CoachingStep, controls: readonly PageControl[]): ScoredControl[] {
  const words = wordsOf(step);
  const total = [...words.content.values()].reduce((sum, entry) => sum + entry.weight, 0);
  const scored: ScoredControl[] = [];
  for (const control of controls) {
    if (!ACTIONABLE_ROLES.has(control.role) || control.name.trim() === "") continue;
    const stems = nameStems(control.name);
    if (stems.length === 0 || total === 0) continue;
    const matched = [...words.content.entries()].filter(([key]) => stems.includes(key));
    if (matched.length === 0) continue;
    const covered = matched.reduce((sum, [, entry]) => sum + entry.weight, 0) / total;
    const precise = matched.length / stems.length;
    const roleFits = words.roles.size === 0 ? undefined : words.roles.has(control.role);
    const score = Math.min(1, 0.65 * covered + 0.25 * precise + (roleFits === true ? 0.1 : roleFits === undefined ? 0.05 : 0));
    const reasons = [`${quoteList(matched.map(([, entry]) => entry.said))} ${matched.length === 1 ? "is" : "are"} in its name "${control.name.slice(0, 80)}"`];
    if (precise < 1) reasons.push(`its name also says ${quoteList(stems.filter((key) => !words.content.has(key)).slice(0, 3))}`);
    const missing = [...words.content.entries()].filter(([key, entry]) => !stems.includes(key) && entry.weight === 1).map(([, entry]) => entry.said);
    if (missing.length > 0) reasons.push(`not ${quoteList(missing.slice(0, 3))}`);
    if (roleFits === true) reasons.push(`${quoteList(words.roleWords.slice(0, 2))} asks for a ${control.role}`);
    if (roleFits === false) reasons.push(`though ${quoteList(words.roleWords.slice(0, 2))} asks for another kind of control than a ${control.role}`);
    scored.push({
      control,
      target: { role: control.role, name: control.name.slice(0, 200), why: reasons.join("; ").slice(0, 400), score: Math.round(score * 1000) / 1000 },
    });
  }
  return scored.sort((a, b) => b.target.score - a.target.score || a.control.order - b.control.order);
}

/** The control to propose for a step, with up to three alternatives; none when nothing fits well enough. */
export function proposeControl(step: CoachingStep, controls: readonly PageControl[]): { best?: ScoredControl; alternatives: ScoredControl[] } {
  const scored = scoreControls(step, controls);
  const best = scored[0];
  if (best === undefined || best.target.score < PROPOSE_MIN_SCORE) return { alternatives: scored.slice(0, 3) };
  return { best, alternatives: scored.slice(1, 4) };
}

function quoteList(words: readonly string[]): string {
  return words.map((word) => `'${word}'`).join(", ");
}

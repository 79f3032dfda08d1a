/**
 * Requests that name a task by its circumstance, not its action (issue #15): "where is my
 * parcel" asks to track it, "my laptop is not working" says it is broken, "I forgot my password"
 * asks to reset it, "I don't want these emails anymore" asks to stop them. This is how people ask
 * an assistant — the phrasing of our own domain, as `REQUEST_WORDS` is — not a synonym list: each
 * cue is a question or complaint pattern of everyday requests, and what it implies is the action
 * (or state) people mean by it, in words the lexicon then widens as it widens any request word.
 *
 * A cue adds one word to the request, found as any of its implied words (at the closeness of the
 * best), weighing `IMPLIED_SHARE` of a request word as rare as its rarest: it tells apart abilities
 * that share the request's object ("Track the delivery" and "Schedule a package pickup" for "where
 * is my package"). Measured at 0.3, 0.5, 0.7 and 1 (BENCHMARKS.md, fifth round): 1 is best.
 */

export interface CircumstanceCue {
  /** What the request says, as explain-match shows it ("where is …"). */
  label: string;
  /** Tested on the normalized request (lower case, contractions expanded, punctuation a space). */
  pattern: RegExp;
  /** The actions or states the circumstance implies, as words. */
  implies: readonly string[];
}

/** How much a cue's word weighs next to a request word of the same rarity. */
export const IMPLIED_SHARE = 1;

export const CIRCUMSTANCE_CUES: readonly CircumstanceCue[] = [
  // Asking where a thing one is owed is: its status, its tracking.
  { label: "where is …", pattern: /^(?:so )?where(?: is| are| has| have)? (?:my|our|the|his|her|their)\b/, implies: ["track", "status", "locate"] },
  // Asking when a thing will come.
  { label: "when will … arrive", pattern: /\bwhen (?:will|does|do|is|are|should)\b.*\b(?:arrive|arriving|come|coming|get here|be delivered|delivered|show up)\b/, implies: ["track", "delivery", "status"] },
  // Something that does not work is broken: it is reported, or repaired.
  { label: "… not working", pattern: /\b(?:not|never) work(?:s|ing)?\b|\bstopped working\b|\bbroke down\b|\bwill not (?:start|turn on|work)\b/, implies: ["broken", "repair", "problem"] },
  // Something forgotten or locked is recovered, or reset.
  { label: "forgot …", pattern: /\b(?:forgot|forgotten|can not remember|do not remember)\b|\blocked out\b|\bcan not (?:log|sign) ?in\b/, implies: ["reset", "recover"] },
  // Not wanting something any more is stopping it.
  { label: "… not want any more", pattern: /\b(?:do not|no longer|not) want\b.*\b(?:anymore|any more)\b|\bno longer want\b|\bstop (?:getting|receiving)\b/, implies: ["stop", "cancel", "unsubscribe"] },
  // Asking how much of one's own is left, owed or used is checking it.
  { label: "how much … my", pattern: /^how (?:much|many)\b.*\b(?:my|i|do i|have i|left)\b/, implies: ["check", "balance", "usage"] },
  // Asking what one's own thing is or how it stands is looking it up.
  { label: "what is my …", pattern: /^(?:what|how)(?: is| are| does)?(?: \w+)? my\b/, implies: ["check", "view"] },
];

/** The cues a normalized request holds, each once, in the order above. */
export function circumstanceCuesOf(normalized: string): readonly CircumstanceCue[] {
  return CIRCUMSTANCE_CUES.filter((cue) => cue.pattern.test(normalized));
}

/**
 * Requests that name a task by its circumstance, not its action (issue #15): "where is my
 * parcel" asks to track it, "my laptop is not working" says it is broken, "I forgot my password"
 * asks to reset it, "my insurance is expiring" asks to renew it. This is how people ask
 * an assistant — the phrasing of our own domain, as `REQUEST_WORDS` is — not a synonym list: each
 * cue is a question or complaint pattern of everyday requests, and what it implies is the action
 * (or state) people mean by it, in words the lexicon then widens as it widens any request word.
 *
 * A cue adds one word to the request, found as any of its implied words (at the closeness of the
 * best), weighing `IMPLIED_SHARE` of a request word as rare as its rarest. It only ranks: it tells
 * apart the abilities the request's own words find ("Track the delivery" and "Schedule a package
 * pickup" for "where is my package"), and never makes a match — counted in the wording score too,
 * it let "where are my keys", "I forgot my umbrella" or "my milk expired" find "Track the delivery",
 * "Reset my password" or "Renew my passport". Its weight measured at 0.3, 0.5, 0.7 and 1
 * (BENCHMARKS.md, fifth round): 1 is best.
 *
 * A circumstance that implies one of several different actions is no cue: "I don't want these
 * emails anymore" may mean unsubscribe, delete, mute or block (measured as "stop, cancel,
 * unsubscribe": it took one request of the fourth set away from its ability, helped none).
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
  {
    label: "when will … arrive",
    pattern: /\bwhen (?:will|does|do|is|are|should)\b.*\b(?:arrive|arriving|come|coming|get here|be delivered|delivered|show up)\b/,
    implies: ["track", "delivery", "status"],
  },
  // Something that does not work is broken: it is reported, or repaired.
  {
    label: "… not working",
    pattern: /\b(?:not|never) work(?:s|ing)?\b|\bstopped working\b|\bbroke down\b|\bwill not (?:start|turn on|work)\b/,
    implies: ["broken", "repair", "problem"],
  },
  // Something forgotten or locked is recovered, or reset.
  {
    label: "forgot …",
    pattern: /\b(?:forgot|forgotten|can not remember|do not remember)\b|\blocked out\b|\bcan not (?:log|sign) ?in\b/,
    implies: ["reset", "recover"],
  },
  // Something lost or stolen is reported, blocked or replaced.
  {
    label: "… lost or stolen",
    pattern: /\b(?:i|we) (?:lost|misplaced)\b|\b(?:was|were|got|been) (?:lost|stolen)\b|\bcan not find my\b/,
    implies: ["lost", "report", "replace"],
  },
  // Something about to expire is renewed.
  { label: "… expiring", pattern: /\bexpir(?:e|es|ed|ing)\b|\b(?:runs|ran|running) out (?:soon|next|this|at|on|in)\b/, implies: ["renew", "extend"] },
  // Running low on something is ordering more.
  { label: "running low on …", pattern: /\b(?:running|run|ran) (?:low|out) (?:on|of)\b|\balmost out of\b/, implies: ["refill", "reorder", "top_up"] },
  // A delivery that came wrong is returned.
  {
    label: "… arrived damaged",
    pattern: /\b(?:arrived|came|showed up|was delivered) (?:broken|damaged|wrong|cracked|late)\b|\bwrong (?:size|item|order)\b|\bdoes not fit\b/,
    implies: ["return", "refund"],
  },
  // Not being able to make it is cancelling or moving it.
  { label: "can't make it", pattern: /\b(?:can|will|could) not make it\b|\bcan not (?:attend|come|go) to\b/, implies: ["cancel", "reschedule"] },
  // A charge one did not expect is disputed.
  {
    label: "charged twice",
    pattern:
      /\bcharged (?:me )?(?:twice|double|two times)\b|\bdouble charged\b|\bdid not (?:authorize|make|recognize) (?:this |that |the )?(?:charge|payment|transaction)\b/,
    implies: ["dispute", "refund"],
  },
  // Asking how much of one's own is left, owed or used is checking it.
  { label: "how much … my", pattern: /^how (?:much|many)\b.*\b(?:my|i|do i|have i|left)\b/, implies: ["check", "balance", "usage"] },
  // Asking what one's own thing is or how it stands is looking it up.
  { label: "what is my …", pattern: /^(?:what|how)(?: is| are| does)?(?: \w+)? my\b/, implies: ["check", "view"] },
];

/** The cues a normalized request holds, each once, in the order above. */
export function circumstanceCuesOf(normalized: string): readonly CircumstanceCue[] {
  return CIRCUMSTANCE_CUES.filter((cue) => cue.pattern.test(normalized));
}

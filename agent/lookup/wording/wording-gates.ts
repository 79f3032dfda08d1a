import type { AbilityAvailabilityEntry } from "../../../shared/abilities/availability";
import type { AbilityLookupQuery } from "../../../shared/abilities/lookup-contract";
import { searchesLane } from "../baseline-scorer";
import type { Lexicon } from "../lexicon/wording-lexicon";
import { ACTION_MIN_WEIGHT, ownForms, wordsAround, type QueryTerm } from "./wording-expansion";
import { termsOf, type Term } from "./wording-terms";

// What the wording matcher never matches, whatever the words: lanes, negative triggers, an opposite
// action; and the title action a request's action clashes with (`verbClash`), which ranks lower.

/** Why a lookup never returns an ability, whatever the request's words; undefined when it may. */
export function wordingRejection(query: AbilityLookupQuery, entry: AbilityAvailabilityEntry): string | undefined {
  if (entry.install_lane === "quarantined" || entry.checkpoint_health === "quarantined") return "quarantined";
  if (!entry.enabled) return "disabled by the user";
  if (!searchesLane(query, entry.install_lane)) return `install_lane_not_allowed: ${entry.install_lane}`;
  return undefined;
}

/**
 * The negative trigger a request hits, if any: contained as written (as §0C.11C checks), or every
 * word of it present in the request by base form ("deleting invoices" hits "delete the invoice").
 */
export function negativeTriggerHit(
  queryText: string,
  queryLemmas: ReadonlySet<string>,
  entry: AbilityAvailabilityEntry,
  lexicon: Lexicon,
  /** `termsOf`, or a cached version of it (an index reads each negative trigger once). */
  termsOfText: (text: string) => readonly Term[] = (text) => termsOf(text, lexicon),
): string | undefined {
  const lower = queryText.toLowerCase();
  for (const negative of entry.negative_triggers) {
    if (negative.trim().length > 0 && lower.includes(negative.toLowerCase())) return negative;
    const terms = termsOfText(negative);
    if (terms.length > 0 && terms.every((term) => term.lemmas.some((lemma) => queryLemmas.has(lemma)))) return negative;
  }
  return undefined;
}

/**
 * The request's action whose opposite begins the ability's title, if any ("turn off" for "Turn on
 * two-factor authentication"): such an ability does what the request asks to undo. `titleAction`
 * is the base forms of the title's first word, a phrase's words with it ("subscribe_to", "subscribe").
 */
export function opposedAction(terms: readonly QueryTerm[], titleAction: readonly string[]): { asked: string; opposite: string } | undefined {
  const action = terms[0];
  if (action === undefined || action.opposites.length === 0 || ownForms(action).some((lemma) => titleAction.includes(lemma))) return undefined;
  const opposite = action.opposites.find((lemma) => titleAction.includes(lemma));
  return opposite === undefined ? undefined : { asked: action.word, opposite: opposite.replace(/_/g, " ") };
}

/**
 * A verb and its object: an ability whose title begins with an action (a verb people do not use
 * lightly) that the request's action is not even loosely related to does something else to the
 * same things ("settle the apartment rent": "Search for apartments to rent" searches, it does not
 * pay). Its ranking score is multiplied by `VERB_CLASH_SHARE`; whether it matches at all is not
 * changed. Related: one is found as the other, or as a word the other brings (a broader or a
 * defining word), at a closeness of at least `VERB_NEAR`.
 */
export const VERB_CLASH_SHARE = 0.8;
export const VERB_NEAR = 0.3;
/** Verbs used this often or more ("pay", "send", "get") are too light to clash: measured at 0.4 and 0.42 too (BENCHMARKS.md, fifth round). */
export const VERB_MIN_WEIGHT = ACTION_MIN_WEIGHT;

/** The title's action the request's clashes with, if any (see `VERB_CLASH_SHARE`). */
export function verbClash(
  terms: readonly QueryTerm[],
  titleAction: readonly string[],
  lexicon: Lexicon,
  /** `wordsAround`'s cache (an index shares one across its abilities). */
  around: Map<string, ReadonlyMap<string, number>>,
): string | undefined {
  const asked = terms[0];
  if (asked === undefined || asked.implied !== undefined || titleAction.length === 0) return undefined;
  if (asked.weight < VERB_MIN_WEIGHT || !asked.lemmas.some((lemma) => lexicon.mostlyVerb(lemma))) return undefined;
  if (!titleAction.some((lemma) => lexicon.mostlyVerb(lemma) && lexicon.weight(lemma) >= VERB_MIN_WEIGHT)) return undefined;
  const near = (lemma: string) => {
    if ((asked.expansions.get(lemma)?.closeness ?? 0) >= VERB_NEAR) return true;
    for (const [word, closeness] of wordsAround(lemma, lexicon, around)) if (closeness * (asked.expansions.get(word)?.closeness ?? 0) >= VERB_NEAR) return true;
    return false;
  };
  return titleAction.some(near) ? undefined : (titleAction[0] as string).replace(/_/g, " ");
}

export function lemmaSetOf(terms: readonly Term[]): Set<string> {
  return new Set(terms.flatMap((term) => term.lemmas));
}

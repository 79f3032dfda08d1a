import type { AbilityAvailabilityEntry } from "../../../shared/abilities/availability";
import { searchesLane } from "../baseline-scorer";
import { FULL_TEXT, TEXT_MIN, type AbilityLookupQuery } from "../../../shared/abilities/lookup-contract";
import type { Lexicon } from "../lexicon/wording-lexicon";
import { contentSize, normalizeText, termsOf, type Term } from "./wording-terms";
import { ACTION_MIN_WEIGHT, ACTION_PENALTY, ownForms, queryTermsOf, wordsAround, type QueryTerm } from "./wording-expansion";

/**
 * The wording matcher (issue #15): how well an ability's wording covers a request, whatever words
 * the request uses. `wording-index.ts` answers lookups over a whole snapshot with the same numbers;
 * this file says what they are and explains them for one ability (`explain-match`).
 *
 * - Text: each word of the request that carries meaning is looked for in the ability's fields —
 *   as written, by base form, or through a related word from the lexicon (synonym, derivation,
 *   broader or narrower word), scaled by how close the relation is and by the field it is found in
 *   (title and triggers count fully, trigger tests and "when to use" lines a little less, the
 *   description less). `coverage` is the share of the request's meaning found, each word weighed
 *   by how much it says (rare words more than "get" or "make"); `title_share` is the share of the
 *   ability's title the request covers, which prefers "Export invoices" over "Export invoices and
 *   email them" for "export the invoices".
 *   Each word of the ability counts for one word of the request (the one it says most for), and
 *   each word of its title once: "timer" and "minutes" both lead to "time", but "time" does not
 *   cover the request twice.
 * - A match needs `text ≥ TEXT_MIN`: calibrated so a request about something else returns nothing.
 * - `rank_text` is `text` with each ability word weighed by its rarity in the snapshot (`Rarity`):
 *   found as a word most abilities hold ("make", "time"), a request word tells them apart less.
 * - `score` (what lookup returns, and ranks by) = 0.6 × min(1, rank_text / 0.6), plus §0C.11C's
 *   scope, lane and checkpoint-health weights, halved when the ability is not usable now, in [0, 1].
 *   0.6 is what §0C.11C gives its text signals (trigger 0.4 + title 0.2), reached from a text score
 *   of `FULL_TEXT`, so scope and lane weigh as they do there.
 * - Never matched: quarantined abilities, disabled ones, lanes the query does not search, and
 *   any request containing a negative trigger (as written, or all its words by base form).
 */

/** The wording of one ability, as the matcher reads it: its availability entry and its SKILL.md. */
export interface LookupDocument {
  entry: AbilityAvailabilityEntry;
  /** The SKILL.md description (the goal summary). */
  description?: string | undefined;
  /** The "When to use" lines of SKILL.md. */
  when_to_use?: readonly string[] | undefined;
  /** Requests the skill was validated with (positive trigger tests and paraphrases). */
  trigger_tests?: readonly string[] | undefined;
}

export const FIELDS = ["title", "triggers", "trigger_tests", "when_to_use", "description"] as const;
export type Field = (typeof FIELDS)[number];
export const FIELD_WEIGHTS: Record<Field, number> = { title: 1, triggers: 1, trigger_tests: 0.9, when_to_use: 0.9, description: 0.8 };

export const COVERAGE_SHARE = 0.8;
/**
 * A request says at least this much: one rare word weighs 1, a common or time word about 0.35.
 * "what day of the week is it" is two weak words; found in full, it still covers little.
 */
export const MIN_REQUEST_WEIGHT = 1.2;
export const TEXT_WEIGHT = 0.6;

/** The texts of each field of a document. */
export function fieldTexts(document: LookupDocument): Record<Field, readonly string[]> {
  return {
    title: [document.entry.title],
    triggers: [...document.entry.trigger_phrases, ...document.entry.aliases],
    trigger_tests: document.trigger_tests ?? [],
    when_to_use: document.when_to_use ?? [],
    description: document.description === undefined ? [] : [document.description],
  };
}

/**
 * What finding a word at a closeness counts for: squared, so that one close word (a synonym, 0.72)
 * counts for more than several loosely related ones (a broader word, 0.36): requests about
 * something else meet an ability's words only loosely, and must not add up to a match.
 */
export function evidence(value: number): number {
  return value * value;
}

/** `text` from the per-word results: Σ weight × found / Σ weight, and the title's share. */
export function textScore(totalWeight: number, found: number, titleFound: number, titleTerms: number): number {
  if (totalWeight <= 0) return 0;
  const coverage = found / Math.max(totalWeight, MIN_REQUEST_WEIGHT);
  const titleShare = titleTerms === 0 ? 0 : Math.min(1, titleFound / titleTerms);
  return COVERAGE_SHARE * coverage + (1 - COVERAGE_SHARE) * titleShare;
}

/** §0C.11C steps 4–7 around the text score: scope, lane, checkpoint health, usability. */
export function wordingScore(text: number, entry: AbilityAvailabilityEntry, projectId: string | undefined): number {
  let score = TEXT_WEIGHT * Math.min(1, text / FULL_TEXT);
  if (projectId && entry.project_scopes.includes(projectId)) score += 0.15;
  else if (entry.project_scopes.length === 0 || entry.project_scopes.includes("*")) score += 0.05;
  if (entry.install_lane === "shared_promoted") score += 0.1;
  else if (entry.install_lane === "approved_workspace") score += 0.07;
  else if (entry.install_lane === "experimental_private") score += 0.03;
  if (entry.checkpoint_health === "strong") score += 0.05;
  else if (entry.checkpoint_health === "weak") score -= 0.05;
  if (!entry.usable_now) score *= 0.5;
  return Math.min(1, Math.max(0, score));
}

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

/** What the matcher found for one ability, with reasons a person can read. */
export interface WordingExplanation {
  matched: boolean;
  score: number;
  /** The share of the request the ability's wording covers: a match needs `TEXT_MIN`. */
  text: number;
  /** The same, each ability word weighed by how few abilities hold it: `score` is made from it. */
  rank_text: number;
  reasons: string[];
  rejections: string[];
  /** The one of `rejections` that says the wording covers too little of the request, if it does. */
  text_rejection?: string;
}

/**
 * The words of each field of a document: its own base forms (closeness 1) and their broader words
 * (`Lexicon.broader`), each with the closeness it is found at.
 */
export type DocumentWords = ReadonlyMap<Field, ReadonlyMap<string, number>>;

/**
 * The best place a request word is found in a document: closeness × field weight, the ability word
 * it is found as (`lemma`), and its best closeness to a word of the title.
 */
export function findTerm(term: QueryTerm, fields: DocumentWords): { value: number; title: number; lemma?: string; titleLemma?: string; reason?: string } {
  let value = 0;
  let title = 0;
  let best: string | undefined;
  let titleLemma: string | undefined;
  let reason: string | undefined;
  for (const [lemma, { closeness, via }] of term.expansions) {
    for (const field of FIELDS) {
      const own = fields.get(field)?.get(lemma);
      if (own === undefined) continue;
      // Multiplied in the order the index multiplies: closeness × (own closeness × field weight).
      const found = closeness * (own * FIELD_WEIGHTS[field]);
      if (found > value) {
        value = found;
        best = lemma;
        const how =
          closeness === 1 && own === 1
            ? lemma === term.word.replace(" ", "_") || lemma === term.word
              ? "as written"
              : `as "${lemma}"`
            : own < 1
              ? `via "${lemma}", which a word of the ability is a kind of, is defined by or is made of (${(closeness * own).toFixed(2)})`
              : `via related word "${lemma}" (of "${via}", ${closeness.toFixed(2)})`;
        reason = `"${term.word}" found ${how} in ${field}`;
      }
      // An own title word counts for the words it stands for (`contentSize`), a related one for one.
      const titleValue = closeness * own * (own === 1 ? contentSize(lemma) : 1);
      if (field === "title" && titleValue > title) {
        title = titleValue;
        titleLemma = lemma;
      }
    }
  }
  return { value, title, ...(best === undefined || reason === undefined ? {} : { lemma: best, reason }), ...(titleLemma === undefined ? {} : { titleLemma }) };
}

/**
 * Each word of an ability counts for one word of the request, the one it says most for: "timer"
 * and "minutes" both lead to "time", but a request is not covered twice by one word. `found` and
 * `title` are the sums over the ability words used.
 */
export class WordUse {
  private readonly used = new Map<string, { found: number; ranked: number; term: string }>();
  found = 0;
  /** `found` with each ability word weighed by its rarity (see `Rarity`): what ranking reads. */
  ranked = 0;
  title = 0;

  private readonly titleUsed = new Map<string, number>();

  /** A title word found for a request word, closeness `title`: each title word counts once, at its best. */
  addTitle(lemma: string, title: number): void {
    const seen = this.titleUsed.get(lemma) ?? 0;
    if (seen >= title) return;
    this.title += title - seen;
    this.titleUsed.set(lemma, title);
  }

  add(lemma: string, found: number, ranked: number, term: string): boolean {
    const seen = this.used.get(lemma);
    if (seen !== undefined && seen.found >= found) return false;
    this.found += found - (seen?.found ?? 0);
    this.ranked += ranked - (seen?.ranked ?? 0);
    this.used.set(lemma, { found, ranked, term });
    return true;
  }

  /** The request word an ability word was used for. */
  termOf(lemma: string): string | undefined {
    return this.used.get(lemma)?.term;
  }
}

/**
 * How much finding a request word as an ability word says, by how many abilities hold that word
 * (as their own, or as a broader or defining word of theirs): a word most abilities hold ("make",
 * "time", "act") tells them apart less than one only a few hold. 1 for a word held by one ability
 * in `MIN_POPULATION`, down to `1 - RARITY_SHARE` for a word all abilities hold. The share is
 * counted over at least `MIN_POPULATION` abilities, so that with a handful installed a word is not
 * discounted for being in one of them.
 */
export type Rarity = (lemma: string) => number;
export const NO_RARITY: Rarity = () => 1;
export const RARITY_SHARE = 0.5;
export const MIN_POPULATION = 20;
export function rarityOf(holders: number, population: number): number {
  return 1 - RARITY_SHARE * Math.sqrt(holders / Math.max(population, MIN_POPULATION, holders));
}

/** How many words that carry meaning a title has, a phrase counting for its words (`contentSize`). */
export function titleSize(title: string, lexicon: Lexicon): number {
  return termsOf(title, lexicon).reduce((sum, term) => sum + contentSize(term.lemmas[0] as string), 0);
}

/** The words of each field of a document, and how many words its title has. */
export function documentWords(
  document: LookupDocument,
  lexicon: Lexicon,
  /** Shared by the documents of one index: a word's broader and defining words are the same in each. */
  cache: Map<string, ReadonlyMap<string, number>> = new Map(),
): { fields: Map<Field, Map<string, number>>; titleTerms: number } {
  const texts = fieldTexts(document);
  const around = (lemma: string) => wordsAround(lemma, lexicon, cache);
  const fields = new Map<Field, Map<string, number>>();
  for (const field of FIELDS) {
    const words = new Map<string, number>();
    const lemmas = texts[field].flatMap((text) => termsOf(text, lexicon).flatMap((term) => term.lemmas));
    const note = (word: string, closeness: number) => {
      if ((words.get(word) ?? 0) < closeness) words.set(word, closeness);
    };
    for (const lemma of lemmas) for (const [word, closeness] of around(lemma)) note(word, closeness);
    for (const lemma of lemmas) words.set(lemma, 1);
    fields.set(field, words);
  }
  return { fields, titleTerms: titleSize(document.entry.title, lexicon) };
}

/** The matcher's verdict on one ability, with its reasons: the same score a lookup gives it. */
export function explainWording(
  query: AbilityLookupQuery,
  document: LookupDocument,
  lexicon: Lexicon,
  rarity: Rarity = NO_RARITY,
  /** The words of the snapshot the ability is in, that begin with a prefix (an index's); by default the ability's own. */
  wordsStartingWith?: (prefix: string) => Iterable<string>,
): WordingExplanation {
  const { fields, titleTerms } = documentWords(document, lexicon);
  const words = [...new Set([...fields.values()].flatMap((field) => [...field.keys()]))].sort();
  const terms = queryTermsOf(query.user_query, lexicon, wordsStartingWith ?? ((prefix) => words.filter((word) => word.startsWith(prefix))));
  let total = 0;
  const use = new WordUse();
  const hits: Array<{ term: string; lemma: string; reason: string }> = [];
  const reasons: string[] = [];
  const missing: string[] = [];
  let actionMissing: string | undefined;
  let actionWeight = 0;
  // A circumstance cue's word ranks the abilities the request's own words find; it never makes a match.
  let cueWeight = 0;
  let cueRanked = 0;
  const cueReasons: string[] = [];
  for (const term of terms) {
    if (term.implied !== undefined) {
      cueWeight += term.weight;
      const hit = findTerm(term, fields);
      if (hit.lemma === undefined || hit.reason === undefined) missing.push(term.word);
      else {
        cueRanked += term.weight * evidence(hit.value * rarity(hit.lemma));
        cueReasons.push(`${hit.reason} (the action the request's circumstance implies: it ranks, it does not make a match)`);
      }
      continue;
    }
    total += term.weight;
    const hit = findTerm(term, fields);
    if (term.action === true && hit.value === 0) {
      actionMissing = term.word;
      actionWeight = term.weight;
    }
    if (hit.titleLemma !== undefined) use.addTitle(hit.titleLemma, hit.title);
    if (hit.lemma === undefined || hit.reason === undefined) {
      missing.push(term.word);
      continue;
    }
    use.add(hit.lemma, term.weight * evidence(hit.value), term.weight * evidence(hit.value * rarity(hit.lemma)), term.word);
    hits.push({ term: term.word, lemma: hit.lemma, reason: hit.reason });
  }
  for (const { term, lemma, reason } of hits) {
    const owner = use.termOf(lemma);
    reasons.push(owner === term ? reason : `${reason}, but "${lemma}" counts for "${owner}"`);
  }
  reasons.push(...cueReasons);
  const penalty = ACTION_PENALTY * actionWeight;
  const text = textScore(total + penalty, use.found, use.title, titleTerms);
  const titleFirst = termsOf(document.entry.title, lexicon)[0];
  const clash = verbClash(terms, titleFirst?.lemmas ?? [], lexicon, new Map());
  const rankText = textScore(total + penalty + cueWeight, use.ranked + cueRanked, use.title, titleTerms) * (clash === undefined ? 1 : VERB_CLASH_SHARE);
  const score = wordingScore(rankText, document.entry, query.project_id);
  const rejections: string[] = [];
  const rejection = wordingRejection(query, document.entry);
  if (rejection !== undefined) rejections.push(rejection);
  const negative = negativeTriggerHit(query.user_query, lemmaSetOf(terms), document.entry, lexicon);
  if (negative !== undefined) rejections.push(`negative_trigger_match: "${negative}"`);
  const opposed = opposedAction(terms, titleFirst?.lemmas ?? []);
  if (opposed !== undefined) rejections.push(`opposite_action: the request asks to "${opposed.asked}", the opposite of "${opposed.opposite}" at the start of its title`);
  let textRejection: string | undefined;
  if (terms.length === 0) rejections.push(`the request "${normalizeText(query.user_query).slice(0, 80)}" has no words that carry meaning`);
  else if (text < TEXT_MIN) rejections.push((textRejection = `wording covers ${(text * 100).toFixed(0)} % of the request, below ${(TEXT_MIN * 100).toFixed(0)} %`));
  if (missing.length > 0) reasons.push(`not found: ${missing.map((word) => `"${word}"`).join(", ")}`);
  if (clash !== undefined) reasons.push(`the request asks to "${terms[0]?.word}", and the ability's title begins with another action, "${clash}": it ranks lower (× ${VERB_CLASH_SHARE})`);
  if (actionMissing !== undefined) reasons.push(`"${actionMissing}", the action asked for, is nowhere in the ability's wording: it counts twice in the request`);
  reasons.unshift(`wording text score ${text.toFixed(2)} (matches from ${TEXT_MIN.toFixed(2)}); ${rankText.toFixed(2)} weighed by how few abilities hold the words found (ranks by it)`);
  if (!document.entry.usable_now) reasons.push(`usable_now=false: ${document.entry.reason_unusable ?? "unknown"}`);
  return { matched: rejections.length === 0, score, text, rank_text: rankText, reasons, rejections, ...(textRejection === undefined ? {} : { text_rejection: textRejection }) };
}

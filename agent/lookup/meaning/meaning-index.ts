import type { AbilityAvailabilityEntry } from "../../../shared/abilities/availability";
import { compareCodeUnits, LOOKUP_MAX_RESULTS } from "../baseline-scorer";
import { FULL_TEXT, type AbilityLookupQuery } from "../../../shared/abilities/lookup-contract";
import type { WordingIndex } from "../wording/wording-index";
import type { WordingMatch } from "../wording/wording-rank";
import { createMeanScan, dot } from "./meaning-scan";
import type { WordingExplanation } from "../wording/wording-matcher";
import { wordingScore, type LookupDocument } from "../wording/wording-score";

/**
 * The meaning of a request next to its words (issue #15, eighth round): each ability's phrases
 * (title, description, "when to use" lines, triggers, aliases, trigger tests) and the request are read as sentence
 * vectors by a sentence encoder (the agent's: `sentence-encoder.ts`), so "bump up my
 * credit line" is found close to "Increase the credit card limit" with no word in common. This file
 * is the arithmetic only; it is given the vectors.
 *
 * - `similarity`: the cosine between the request and the ability's closest phrase.
 * - Ranking: `blend` = WORDING_SHARE × min(1, rank_text / FULL_TEXT) + (1 − WORDING_SHARE) × similarity,
 *   and `score` = `wordingScore(blend × FULL_TEXT)`: the same scope, lane and checkpoint-health
 *   weights as the wording matcher's (§0C.11C's), halved when the ability is not usable now.
 * - A match: an ability the wording matcher matched, or one whose similarity alone reaches
 *   `MEANING_ALONE_MIN` — calibrated on the tuned evaluation sets (BENCHMARKS.md, "eighth round") so
 *   that none of their unrelated requests matches. The wording matcher's hard gates stay hard: a
 *   quarantined or disabled ability, a lane not searched, a negative trigger, an opposite action.
 */
export const WORDING_SHARE = 0.3;
export const MEANING_ALONE_MIN = 0.58;
/** Abilities whose phrases are all compared with the request: the closest by their mean vector. */
export const MEANING_SHORTLIST = 32;

/** The compiler's templates around a phrase ("help me …", "can you …"): the phrase says the same. */
const TEMPLATE = /^(?:help me|can you) /;

/**
 * The phrases of an ability read for their meaning: lower case, each once, templates left out. The
 * trigger tests it was validated with are among them (ninth round): they say it the way a person
 * asks an assistant ("could you … for me", "i need to …"), and a request said that way reads closer.
 */
export function meaningPhrases(document: LookupDocument): string[] {
  const texts = [
    document.entry.title,
    document.description ?? "",
    ...(document.when_to_use ?? []),
    ...document.entry.trigger_phrases,
    ...document.entry.aliases,
    ...(document.trigger_tests ?? []),
  ];
  const phrases = new Set(texts.map((text) => text.trim().toLowerCase()).filter((text) => text.length > 0));
  return [...phrases].filter((phrase) => !(TEMPLATE.test(phrase) && phrases.has(phrase.replace(TEMPLATE, ""))));
}

/** A request's text as it is read for its meaning (as `meaningPhrases` reads an ability's). */
export function meaningText(request: string): string {
  return request.trim().toLowerCase();
}

/** How close a request is to one ability: its closest phrase and the cosine. */
export interface Closeness {
  similarity: number;
  phrase: string;
  /**
   * When the closest phrase is the skill's folder name (`isFolderName`): its closest phrase a person
   * wrote (title, description, trigger, trigger test) and that phrase's own cosine, what a reason
   * quotes (issue #34); absent when it has none.
   */
  quote?: { phrase: string; similarity: number };
  /**
   * The cosine of its second closest phrase (its closest's own when it has one phrase): the second
   * tier orders by the mean of the two (`alsoConsider`), so that one phrase reading close by chance
   * counts for less than two that agree (issue #34). `similarity` stays the closest's.
   */
  second?: number;
}

/** One word of lower-case letters and digits joined by hyphens, underscores or dots: a slug ("pdf-tools"), not a phrase. */
const SLUG = /^[a-z0-9]+(?:[-_.][a-z0-9]+)+$/;

/**
 * Whether a phrase of an ability is its folder's name rather than words a person wrote: a slug, or
 * the skill's slug (or ability id) as it is or as "use …" (`deriveTriggers` makes a trigger of a
 * skill's name). Still read for meaning; never quoted as the reason it came up.
 */
export function isFolderName(phrase: string, entry: AbilityAvailabilityEntry): boolean {
  const text = phrase.trim().toLowerCase();
  if (SLUG.test(text)) return true;
  const names = [entry.skill_slug, entry.ability_id.slice(entry.ability_id.indexOf(".") + 1)].filter(
    (name): name is string => name !== undefined && name.length > 0,
  );
  return names.some((name) => {
    const slug = name.toLowerCase();
    const words = slug.replace(/[-_.]+/g, " ");
    // The name read as words ("export the monthly invoices") is most often the title itself: a phrase a person wrote.
    return [slug, `use ${slug}`, `use ${words}`].includes(text);
  });
}

/** The length of the snapshot's vectors: that of the first phrase with one. */
function firstDims(documents: readonly LookupDocument[], vectorOf: (phrase: string) => Float32Array | undefined): number {
  for (const document of documents) {
    for (const phrase of meaningPhrases(document)) {
      const vector = vectorOf(phrase);
      if (vector !== undefined) return vector.length;
    }
  }
  return 0;
}

function unit(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let at = 0; at < vector.length; at += 1) sum += (vector[at] as number) ** 2;
  const norm = Math.sqrt(sum);
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

/**
 * The phrase vectors of a snapshot, each distinct phrase once (issue 32): `flat` holds one unit
 * vector per distinct phrase, `rows` each ability's phrases in order (as rows of `flat`, an ability's
 * from `phraseStart[doc]` to `phraseStart[doc + 1]`), `means` each ability's mean. Built in a function
 * of its own so that nothing of the build (each phrase's vector, the rows by phrase) stays reachable
 * from the index's closures: in one scope, V8 kept every vector of the build alive next to `flat`.
 */
function phraseTable(documents: readonly LookupDocument[], vectorOf: (phrase: string) => Float32Array | undefined, dims: number) {
  const means = new Float32Array(documents.length * dims);
  const phraseStart = new Int32Array(documents.length + 1);
  const rowOf = new Map<string, number>();
  const phrases: string[] = [];
  const unitVectors: Float32Array[] = [];
  const rows: number[] = [];
  const quotable: number[] = [];
  documents.forEach((document, doc) => {
    phraseStart[doc] = rows.length;
    const sum = new Float32Array(dims);
    for (const phrase of meaningPhrases(document)) {
      let row = rowOf.get(phrase);
      if (row === undefined) {
        const vector = vectorOf(phrase);
        if (vector === undefined || vector.length !== dims) continue;
        row = phrases.length;
        rowOf.set(phrase, row);
        phrases.push(phrase);
        unitVectors.push(unit(vector));
      }
      rows.push(row);
      quotable.push(isFolderName(phrase, document.entry) ? 0 : 1);
      const normed = unitVectors[row] as Float32Array;
      for (let at = 0; at < dims; at += 1) sum[at] = (sum[at] as number) + (normed[at] as number);
    }
    means.set(unit(sum), doc * dims);
  });
  phraseStart[documents.length] = rows.length;
  const flat = new Float32Array(phrases.length * dims);
  unitVectors.forEach((vector, row) => flat.set(vector, row * dims));
  return { means, phraseStart, rows: Int32Array.from(rows), quotable: Uint8Array.from(quotable), phrases, flat };
}

/**
 * The phrase vectors of one availability snapshot, in one array, with each ability's mean vector:
 * the `MEANING_SHORTLIST` means closest to a request are found (`meaning-scan.ts`: every mean, or in
 * a large snapshot only those its principal directions cannot rule out), then every phrase of those
 * abilities (and of the abilities asked for: the wording matcher's) is compared with the request.
 */
export function createMeaningIndex(
  documents: readonly LookupDocument[],
  vectorOf: (phrase: string) => Float32Array | undefined,
  /** From how many abilities means are scanned through their principal directions (`meaning-scan.ts`; tests lower it). */
  options: { projectFrom?: number } = {},
) {
  const dims = firstDims(documents, vectorOf);
  const { means, phraseStart, rows, quotable, phrases, flat } = phraseTable(documents, vectorOf, dims);
  const byId = new Map(documents.map((document, doc) => [document.entry.ability_id, doc]));

  const scan = createMeanScan(means, dims, documents.length, (doc) => (phraseStart[doc + 1] as number) === (phraseStart[doc] as number), options);
  const closest = (doc: number, query: Float32Array): Closeness | undefined => {
    let best: Closeness | undefined;
    let second = Number.NEGATIVE_INFINITY;
    let bestQuotable: { phrase: string; similarity: number } | undefined;
    let bestIsQuotable = false;
    for (let at = phraseStart[doc] as number; at < (phraseStart[doc + 1] as number); at += 1) {
      const row = rows[at] as number;
      const similarity = dot(flat, row * dims, query, dims);
      const canQuote = quotable[at] === 1;
      if (best === undefined || similarity > best.similarity) {
        if (best !== undefined) second = best.similarity;
        best = { similarity, phrase: phrases[row] as string };
        bestIsQuotable = canQuote;
      } else if (similarity > second) second = similarity;
      if (canQuote && (bestQuotable === undefined || similarity > bestQuotable.similarity)) bestQuotable = { phrase: phrases[row] as string, similarity };
    }
    if (best === undefined) return undefined;
    best.second = second === Number.NEGATIVE_INFINITY ? best.similarity : second;
    return bestIsQuotable || bestQuotable === undefined ? best : { ...best, quote: bestQuotable };
  };

  return {
    dims,
    /** Whether the means are scanned through their principal directions (a large snapshot). */
    projected: scan.projected,
    /** How many means the last lookup compared with the request in full (the bench's figure). */
    lastCompared: scan.lastCompared,
    /** The availability entry of an ability of the snapshot. */
    entryOf: (abilityId: string): AbilityAvailabilityEntry | undefined => {
      const doc = byId.get(abilityId);
      return doc === undefined ? undefined : (documents[doc] as LookupDocument).entry;
    },
    /** The closest phrase of one ability (explain-match, a trigger test): no shortlist read. */
    closenessOf(requestVector: Float32Array, abilityId: string): Closeness | undefined {
      const doc = byId.get(abilityId);
      const query = unit(requestVector);
      return doc === undefined || query.length !== dims || dims === 0 ? undefined : closest(doc, query);
    },
    /** The closest phrase of each shortlisted ability (and of each of `alsoIds`), keyed by ability id. */
    nearest(requestVector: Float32Array, alsoIds: Iterable<string> = []): Map<string, Closeness> {
      const query = unit(requestVector);
      const found = new Map<string, Closeness>();
      if (query.length !== dims || dims === 0) return found;
      const shortlist = scan.closest(query, MEANING_SHORTLIST);
      const docs = new Set(shortlist.map(({ doc }) => doc));
      for (const id of alsoIds) {
        const doc = byId.get(id);
        if (doc !== undefined) docs.add(doc);
      }
      for (const doc of docs) {
        const closeness = closest(doc, query);
        if (closeness !== undefined) found.set((documents[doc] as LookupDocument).entry.ability_id, closeness);
      }
      return found;
    },
  };
}

export type MeaningIndex = ReturnType<typeof createMeaningIndex>;

/** The ranking text of an ability from its wording (`rank_text`, 0 when not matched) and its meaning. */
export function blendedText(rankText: number, similarity: number): number {
  return FULL_TEXT * (WORDING_SHARE * Math.min(1, rankText / FULL_TEXT) + (1 - WORDING_SHARE) * Math.max(0, similarity));
}

/** A match of the blended lookup: the wording matcher's fields, and the request's closeness to the ability. */
export interface BlendedMatch extends WordingMatch {
  meaning?: Closeness;
}

/**
 * The lookup's matches from the wording matcher's and the request's closeness to each ability:
 * every ability the wording matched, and every ability close enough in meaning alone that the
 * wording matcher's hard gates (`refusal`) let through; ranked by the blended score, at most ten.
 */
export function blendMatches(
  query: AbilityLookupQuery,
  wording: readonly WordingMatch[],
  closeness: ReadonlyMap<string, Closeness>,
  entryOf: (abilityId: string) => AbilityAvailabilityEntry | undefined,
  /** Why the wording matcher never returns this ability for this request (its hard gates; with `byMeaningAlone`, its action clash too); undefined when it may. */
  refusal: (abilityId: string, byMeaningAlone?: boolean) => string | undefined,
): BlendedMatch[] {
  const matches = new Map<string, BlendedMatch>();
  for (const match of wording) matches.set(match.ability_id, { ...match });
  for (const [abilityId, close] of closeness) {
    if (matches.has(abilityId) || close.similarity < MEANING_ALONE_MIN || refusal(abilityId, true) !== undefined) continue;
    const entry = entryOf(abilityId);
    if (entry === undefined) continue;
    matches.set(abilityId, {
      ability_id: abilityId,
      score: 0,
      text: 0,
      rank_text: 0,
      install_lane: entry.install_lane,
      usable_now: entry.usable_now,
      ...(entry.reason_unusable === undefined ? {} : { reason_unusable: entry.reason_unusable }),
    });
  }
  const ranked: BlendedMatch[] = [];
  for (const match of matches.values()) {
    const entry = entryOf(match.ability_id);
    if (entry === undefined) continue;
    const close = closeness.get(match.ability_id);
    ranked.push({
      ...match,
      ...(close === undefined ? {} : { meaning: close }),
      score: wordingScore(blendedText(match.rank_text, close?.similarity ?? 0), entry, query.project_id),
    });
  }
  ranked.sort((a, b) => b.score - a.score || b.text - a.text || compareCodeUnits(a.ability_id, b.ability_id));
  return ranked.slice(0, LOOKUP_MAX_RESULTS);
}

/**
 * A lookup by wording and meaning over one snapshot, given the request's vector. `matches`: the
 * wording matcher's ranking of `query`, when it was made while the vector was being read.
 */
export function lookupBlended(
  wording: WordingIndex,
  meaning: MeaningIndex,
  query: AbilityLookupQuery,
  requestVector: Float32Array,
  matches: readonly WordingMatch[] = wording.rank(query),
): BlendedMatch[] {
  const closeness = meaning.nearest(
    requestVector,
    matches.map((match) => match.ability_id),
  );
  return blendMatches(query, matches, closeness, meaning.entryOf, wording.refusal(query));
}

/** The wording matcher's verdict on one ability, with the request's meaning added (`explain-match`). */
export function explainBlended(
  query: AbilityLookupQuery,
  entry: AbilityAvailabilityEntry,
  wording: WordingExplanation,
  close: Closeness | undefined,
  /** The gates' answer for this ability found by meaning alone (`refusal(id, true)`). */
  refusedByMeaningAlone?: string,
): WordingExplanation {
  if (close === undefined) return wording;
  const hard = wording.rejections.filter((reason) => reason !== wording.text_rejection);
  if (!wording.matched && refusedByMeaningAlone !== undefined && !hard.includes(refusedByMeaningAlone)) hard.push(refusedByMeaningAlone);
  const byMeaning = close.similarity >= MEANING_ALONE_MIN;
  const matched = hard.length === 0 && (wording.matched || byMeaning);
  const reasons = [
    ...wording.reasons,
    `meaning: the request reads closest to "${close.phrase}" (similarity ${close.similarity.toFixed(2)}; ${byMeaning ? "close enough to match on its own" : `on its own it matches from ${MEANING_ALONE_MIN.toFixed(2)}`}); ranked by ${WORDING_SHARE} × wording + ${(1 - WORDING_SHARE).toFixed(1)} × meaning`,
  ];
  return {
    ...wording,
    matched,
    score: wordingScore(blendedText(wording.matched ? wording.rank_text : 0, close.similarity), entry, query.project_id),
    reasons,
    rejections: matched ? [] : byMeaning ? hard : wording.rejections,
  };
}

/**
 * Lookup's answer (the agent's and the benchmark's): the request read with its typos mended, its
 * vector asked for first — so the sentence encoder's process reads it while the wording matcher ranks
 * here — then the blend. Without a meaning index or a vector, the wording matcher's ranking.
 */
export async function lookupReading(
  wording: WordingIndex,
  meaning: MeaningIndex | undefined,
  asked: AbilityLookupQuery,
  vectorOf: (query: AbilityLookupQuery) => Promise<Float32Array | undefined>,
): Promise<BlendedMatch[]> {
  const { query } = wording.readSpelling(asked);
  const reading = meaning === undefined ? undefined : vectorOf(query);
  const ranked = wording.rank(query);
  const vector = await reading;
  return meaning === undefined || vector === undefined ? ranked : lookupBlended(wording, meaning, query, vector, ranked);
}

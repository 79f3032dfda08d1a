import { MAX_QUERY_TERMS, type QueryTerm } from "./wording-expansion";
import { evidence } from "./wording-score";

/**
 * The ranking's per-ability scratch (typed arrays, one entry per ability of the index) and the
 * passes that add one request word's findings into it: what `WordUse` does for one ability in
 * `explainWording`, done for every ability a word reaches at once (`wording-rank.ts`).
 */

/**
 * Per-request scratch of one index, one entry per ability: an entry is valid where its stamp equals
 * the current term's (or request's) epoch. The arrays are per index; `rankRequest` is synchronous,
 * so requests never share them at once.
 */
export interface RankScratch {
  epoch: number;
  termStamp: Int32Array;
  termValue: Float64Array;
  termTitle: Float64Array;
  termLemma: Int32Array;
  termRarity: Float64Array;
  termTitleLemma: Int32Array;
  titleUsedCount: Int32Array;
  /** (title word, closeness) pairs, side by side so that one ability's are read together. */
  titleSlots: Float64Array;
  /** Per ability reached: the ability words used so far and what each counts for (see `WordUse`). */
  usedCount: Int32Array;
  /** (ability word, found, ranked) triples, side by side. */
  slots: Float64Array;
  lemmaIds: Map<string, number>;
  queryStamp: Int32Array;
  found: Float64Array;
  titleFound: Float64Array;
  ranked: Float64Array;
  /** What circumstance cues' words add to `ranked` (see `QueryTerm.implied`). */
  cueRanked: Float64Array;
  touched: Int32Array;
  reached: Int32Array;
  reachedCount: number;
  /** Abilities whose wording has the request's action (its first word, when a verb), stamped per request. */
  actionStamp: Int32Array;
}

export function createRankScratch(count: number): RankScratch {
  return {
    epoch: 0,
    termStamp: new Int32Array(count),
    termValue: new Float64Array(count),
    termTitle: new Float64Array(count),
    termLemma: new Int32Array(count),
    termRarity: new Float64Array(count),
    termTitleLemma: new Int32Array(count),
    titleUsedCount: new Int32Array(count),
    titleSlots: new Float64Array(count * MAX_QUERY_TERMS * 2),
    usedCount: new Int32Array(count),
    slots: new Float64Array(count * MAX_QUERY_TERMS * 3),
    lemmaIds: new Map(),
    queryStamp: new Int32Array(count),
    found: new Float64Array(count),
    titleFound: new Float64Array(count),
    ranked: new Float64Array(count),
    cueRanked: new Float64Array(count),
    touched: new Int32Array(count),
    reached: new Int32Array(count),
    reachedCount: 0,
    actionStamp: new Int32Array(count),
  };
}

export function nextEpoch(scratch: RankScratch): number {
  scratch.epoch += 1;
  if (scratch.epoch === 0x7fffffff) {
    scratch.termStamp.fill(0);
    scratch.queryStamp.fill(0);
    scratch.actionStamp.fill(0);
    scratch.epoch = 1;
  }
  return scratch.epoch;
}

/** The abilities one request word touched, reached by the request: the first time, their sums start from 0. */
export function reachTouched(scratch: RankScratch, term: QueryTerm, touchedCount: number, queryEpoch: number): void {
  const { touched, actionStamp, queryStamp, found, ranked, titleFound, usedCount, titleUsedCount, cueRanked, reached } = scratch;
  for (let n = 0; n < touchedCount; n += 1) {
    const doc = touched[n] as number;
    if (term.action === true) actionStamp[doc] = queryEpoch;
    if (queryStamp[doc] !== queryEpoch) {
      queryStamp[doc] = queryEpoch;
      found[doc] = 0;
      ranked[doc] = 0;
      titleFound[doc] = 0;
      usedCount[doc] = 0;
      titleUsedCount[doc] = 0;
      cueRanked[doc] = 0;
      reached[scratch.reachedCount] = doc;
      scratch.reachedCount += 1;
    }
  }
}

/** `WordUse.addTitle` for each ability one request word touched: each title word counts once, at its best. */
export function addTitleWords(scratch: RankScratch, touchedCount: number): void {
  const { touched, termTitle, termTitleLemma, titleFound, titleSlots, titleUsedCount } = scratch;
  for (let n = 0; n < touchedCount; n += 1) {
    const doc = touched[n] as number;
    if ((termTitle[doc] as number) > 0 && termTitleLemma[doc] === -1) titleFound[doc] = (titleFound[doc] as number) + (termTitle[doc] as number);
    else if ((termTitle[doc] as number) > 0) {
      const base = doc * MAX_QUERY_TERMS * 2;
      const used = titleUsedCount[doc] as number;
      let slot = 0;
      while (slot < used && titleSlots[base + 2 * slot] !== termTitleLemma[doc]) slot += 1;
      if (slot === used) {
        titleSlots[base + 2 * slot] = termTitleLemma[doc] as number;
        titleSlots[base + 2 * slot + 1] = 0;
        titleUsedCount[doc] = used + 1;
      }
      if ((termTitle[doc] as number) > (titleSlots[base + 2 * slot + 1] as number)) {
        titleFound[doc] = (titleFound[doc] as number) + ((termTitle[doc] as number) - (titleSlots[base + 2 * slot + 1] as number));
        titleSlots[base + 2 * slot + 1] = termTitle[doc] as number;
      }
    }
  }
}

/** `WordUse.add` for each ability one request word touched: an ability word counts once, for the request word it says most for. */
export function addAbilityWords(scratch: RankScratch, term: QueryTerm, touchedCount: number): void {
  const { touched, termValue, termLemma, termRarity, found, ranked, slots, usedCount } = scratch;
  for (let n = 0; n < touchedCount; n += 1) {
    const doc = touched[n] as number;
    const contribution = term.weight * evidence(termValue[doc] as number);
    if (termLemma[doc] === -1) {
      found[doc] = (found[doc] as number) + contribution;
      ranked[doc] = (ranked[doc] as number) + term.weight * evidence((termValue[doc] as number) * (termRarity[doc] as number));
      continue;
    }
    const base = doc * MAX_QUERY_TERMS * 3;
    const used = usedCount[doc] as number;
    let slot = 0;
    while (slot < used && slots[base + 3 * slot] !== termLemma[doc]) slot += 1;
    if (slot === used) {
      slots[base + 3 * slot] = termLemma[doc] as number;
      slots[base + 3 * slot + 1] = 0;
      slots[base + 3 * slot + 2] = 0;
      usedCount[doc] = used + 1;
    } else if ((slots[base + 3 * slot + 1] as number) >= contribution) continue;
    const rankedContribution = term.weight * evidence((termValue[doc] as number) * (termRarity[doc] as number));
    found[doc] = (found[doc] as number) + (contribution - (slots[base + 3 * slot + 1] as number));
    ranked[doc] = (ranked[doc] as number) + (rankedContribution - (slots[base + 3 * slot + 2] as number));
    slots[base + 3 * slot + 1] = contribution;
    slots[base + 3 * slot + 2] = rankedContribution;
  }
}

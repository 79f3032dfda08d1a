import { LOOKUP_MAX_RESULTS, LOOKUP_MIN_SCORE, SCORE_EPSILON, searchesLane } from "../../../agent/lookup/baseline-scorer";
import type { AbilityAvailabilityEntry } from "../../../shared/abilities/availability";
import type { AbilityLookupQuery, AbilityLookupResult } from "../../../shared/abilities/lookup-contract";
import { keyOf, RANK_SPAN, SCORES, scoreIndexed, SEARCHABLE_LANES, type IndexedAbility } from "./baseline-scores";
import { bucketOf, bucketSize, forEachContaining, gramHigh, gramLow, heapify, narrowestBucket, popHeap, type IdLists } from "./baseline-text-search";
import { buildBaselineState, type BaselineState } from "./baseline-state";

/** Makes the allowed owners of text `id` candidates, raising their trigger and title levels. */
function mark(state: BaselineState, owners: IdLists, id: number, trigger: number, title: number): void {
  const { allowed, laneOf, itemStamp, itemTrigger, itemTitle, candidates, epoch } = state;
  for (let at = owners.starts[id] as number; at < (owners.starts[id + 1] as number); at += 1) {
    const index = owners.ids[at] as number;
    if (!allowed[laneOf[index] as number]) continue;
    if (itemStamp[index] !== epoch) {
      itemStamp[index] = epoch;
      itemTrigger[index] = 0;
      itemTitle[index] = 0;
      candidates[state.candidateCount] = index;
      state.candidateCount += 1;
    }
    if ((itemTrigger[index] as number) < trigger) itemTrigger[index] = trigger;
    if (title > 0) itemTitle[index] = title;
  }
}

/** Trigger phrases that contain the query, then those the query contains (0.4). */
function markContainingTriggers(state: BaselineState, queryLower: string): void {
  const { triggers, triggerSubstrings, triggerChecked, emptyTriggers, triggersByKey, epoch } = state;
  forEachContaining(triggers.texts, triggerSubstrings, queryLower, (id) => {
    triggerChecked[id] = epoch;
    mark(state, triggers.owners, id, 2, 0);
  });
  const checkContained = (id: number) => {
    if (triggerChecked[id] === epoch) return;
    triggerChecked[id] = epoch;
    if (queryLower.includes(triggers.texts[id] as string)) mark(state, triggers.owners, id, 2, 0);
  };
  for (const id of emptyTriggers) checkContained(id);
  for (let start = 0; start < queryLower.length; start += 1) {
    for (let size = 1; size <= 3 && start + size <= queryLower.length; size += 1) {
      const bucket = bucketOf(gramHigh(queryLower, start, size), gramLow(queryLower, start, size), triggerSubstrings.mask);
      for (let at = triggersByKey.starts[bucket] as number; at < (triggersByKey.starts[bucket + 1] as number); at += 1)
        checkContained(triggersByKey.ids[at] as number);
    }
  }
}

// Tokens count with repetition and a trigger or title needs ≥ 2. The one token (counted once)
// with the longest list is not walked but looked for in the texts the other tokens reach: a
// text holding only that token has 1.

/** Trigger phrases sharing ≥ 2 query tokens (0.2). */
function markSharedTokens(state: BaselineState, tokenCounts: ReadonlyMap<string, number>): void {
  const { tokenIds, tokenTriggers, triggerTokens, triggerStamp, triggerTokensSeen, triggers, epoch } = state;
  const present: Array<[number, number]> = [];
  let skipped = -1;
  for (const [token, times] of tokenCounts) {
    const tokenId = tokenIds.get(token);
    if (tokenId === undefined) continue;
    present.push([tokenId, times]);
    if (times === 1 && (skipped < 0 || bucketSize(tokenTriggers, tokenId) > bucketSize(tokenTriggers, skipped))) skipped = tokenId;
  }
  for (const [tokenId, times] of present) {
    if (tokenId === skipped) continue;
    for (let at = tokenTriggers.starts[tokenId] as number; at < (tokenTriggers.starts[tokenId + 1] as number); at += 1) {
      const id = tokenTriggers.ids[at] as number;
      if (triggerStamp[id] !== epoch) {
        triggerStamp[id] = epoch;
        let seen = 0;
        for (let own = triggerTokens.starts[id] as number; own < (triggerTokens.starts[id + 1] as number); own += 1) {
          if (triggerTokens.ids[own] === skipped) seen = 1;
        }
        triggerTokensSeen[id] = seen;
      }
      const seen = (triggerTokensSeen[id] as number) + times;
      triggerTokensSeen[id] = seen;
      if (seen >= 2 && seen - times < 2) mark(state, triggers.owners, id, 1, 0);
    }
  }
}

/** Titles holding ≥ 2 query tokens as substrings (0.2). The empty token is in every title. */
function markTitles(state: BaselineState, tokenCounts: ReadonlyMap<string, number>): void {
  const { titles, titleSubstrings, titleStamp, titleTokensSeen, epoch } = state;
  const inEveryTitle = tokenCounts.get("") ?? 0;
  if (inEveryTitle >= 2) {
    for (let id = 0; id < titles.texts.length; id += 1) mark(state, titles.owners, id, 0, 1);
    return;
  }
  const words = [...tokenCounts].filter(([token]) => token !== "");
  // With the empty token, a title holding only the skipped word would have 2: skip none.
  let skipped: string | undefined;
  if (inEveryTitle === 0) {
    let largest = -1;
    for (const [token, times] of words) {
      const bucket = narrowestBucket(titleSubstrings, token);
      const size = bucket < 0 ? 0 : bucketSize(titleSubstrings, bucket);
      if (times === 1 && size > largest) [skipped, largest] = [token, size];
    }
  }
  for (const [token, times] of words) {
    if (token === skipped) continue;
    forEachContaining(titles.texts, titleSubstrings, token, (id) => {
      if (titleStamp[id] !== epoch) {
        titleStamp[id] = epoch;
        titleTokensSeen[id] = inEveryTitle + (skipped !== undefined && (titles.texts[id] as string).includes(skipped) ? 1 : 0);
      }
      const seen = (titleTokensSeen[id] as number) + times;
      titleTokensSeen[id] = seen;
      if (seen >= 2 && seen - times < 2) mark(state, titles.owners, id, 0, 1);
    });
  }
}

/** The candidates' keys as a min-heap (its length returned), and the no-text lists the query reads. */
function queueCandidates(
  state: BaselineState,
  projectId: string | undefined,
): { heapLength: number; lists: Array<{ keys: Float64Array; next: number; plain: boolean }> } {
  const { candidates, candidateKeys, itemTrigger, itemTitle, projectStamp, scopeOf, epoch } = state;
  let heapLength = 0;
  for (let at = 0; at < state.candidateCount; at += 1) {
    const index = candidates[at] as number;
    const key = keyOf(state, index, itemTrigger[index] as number, itemTitle[index] as number, projectStamp[index] === epoch ? 2 : (scopeOf[index] as number));
    if (key >= state.passingKeys) continue;
    candidateKeys[heapLength] = key;
    heapLength += 1;
  }
  heapify(candidateKeys, heapLength);
  const lists: Array<{ keys: Float64Array; next: number; plain: boolean }> = [];
  const projectLanes = projectId ? state.projectLists.get(projectId) : undefined;
  SEARCHABLE_LANES.forEach((_, lane) => {
    if (!state.allowed[lane]) return;
    lists.push({ keys: state.plainLists[lane] as Float64Array, next: 0, plain: true });
    if (projectLanes) lists.push({ keys: projectLanes[lane] as Float64Array, next: 0, plain: false });
  });
  return { heapLength, lists };
}

/**
 * The ten best, scored exactly, read best first from the candidates by bound (a heap: most are
 * never read) and from the no-text lists. The lists skip candidates (scored with their text)
 * and, outside the project's own lists, abilities scoped to the queried project.
 */
function bestTen(state: BaselineState, queryLower: string, queryTokens: readonly string[], projectId: string | undefined) {
  const { candidateKeys, byRank, itemStamp, projectStamp, items, epoch } = state;
  const queued = queueCandidates(state, projectId);
  let { heapLength } = queued;
  const { lists } = queued;
  const top: Array<{ index: number; rank: number; score: number }> = [];
  const ranksBefore = (score: number, rank: number, other: { rank: number; score: number }) =>
    score > other.score || (score === other.score && rank < other.rank);
  for (;;) {
    let key = heapLength > 0 ? (candidateKeys[0] as number) : Infinity;
    let from: (typeof lists)[number] | undefined;
    for (const list of lists) {
      for (; list.next < list.keys.length; list.next += 1) {
        const index = byRank[(list.keys[list.next] as number) % RANK_SPAN] as number;
        if (itemStamp[index] !== epoch && !(list.plain && projectStamp[index] === epoch)) break;
      }
      if (list.next < list.keys.length && (list.keys[list.next] as number) < key) {
        key = list.keys[list.next] as number;
        from = list;
      }
    }
    if (key === Infinity) break;
    if (from === undefined) heapLength = popHeap(candidateKeys, heapLength);
    else from.next += 1;
    const rank = key % RANK_SPAN;
    const bound = SCORES.values[(key - rank) / RANK_SPAN] as number;
    const last = top[LOOKUP_MAX_RESULTS - 1];
    // Everything left ranks at or after this bound, and no score exceeds its bound.
    if (last !== undefined && !ranksBefore(bound, rank, last)) break;
    const index = byRank[rank] as number;
    const score = scoreIndexed(items[index] as IndexedAbility, queryLower, queryTokens, projectId);
    if (score < LOOKUP_MIN_SCORE - SCORE_EPSILON) continue;
    let at = top.length;
    while (at > 0 && ranksBefore(score, rank, top[at - 1] as { rank: number; score: number })) at -= 1;
    top.splice(at, 0, { index, rank, score });
    if (top.length > LOOKUP_MAX_RESULTS) top.pop();
  }
  return top;
}

/** Same answer as `lookupAbilities(query, abilities)`. */
function lookupIn(state: BaselineState, query: AbilityLookupQuery): AbilityLookupResult["matches"] {
  const queryLower = query.user_query.toLowerCase();
  const queryTokens = queryLower.split(/\s+/);
  const projectId = query.project_id;
  state.epoch += 1;
  if (state.epoch === 0x7fffffff) {
    for (const stamps of [state.triggerStamp, state.triggerChecked, state.titleStamp, state.itemStamp, state.projectStamp]) stamps.fill(0);
    state.epoch = 1;
  }
  state.allowed = SEARCHABLE_LANES.map((lane) => searchesLane(query, lane));
  state.candidateCount = 0;
  if (projectId) for (const index of state.projectMembers.get(projectId) ?? []) state.projectStamp[index] = state.epoch;

  const tokenCounts = new Map<string, number>();
  for (const token of queryTokens) tokenCounts.set(token, (tokenCounts.get(token) ?? 0) + 1);
  markContainingTriggers(state, queryLower);
  markSharedTokens(state, tokenCounts);
  markTitles(state, tokenCounts);

  return bestTen(state, queryLower, queryTokens, projectId).map(({ index, score }) => {
    const { entry } = state.items[index] as IndexedAbility;
    return {
      ability_id: entry.ability_id,
      score,
      install_lane: entry.install_lane,
      usable_now: entry.usable_now,
      ...(entry.reason_unusable === undefined ? {} : { reason_unusable: entry.reason_unusable }),
    };
  });
}

/**
 * The §0C.11C lookup over one snapshot: exactly `lookupAbilities(query, abilities)`
 * (baseline-index.test.ts compares them on random snapshots) without scoring every ability.
 *
 * - Scope, lane, health and usability do not depend on the query's text, so the abilities that
 *   reach the threshold without a text match are known per snapshot, sorted best first, per lane:
 *   outside the query's project, and for each project id some ability is scoped to.
 * - Any other ability needs a trigger or title match. Indexes built here find a superset of those
 *   (the candidates): trigger texts by substring (trigger contains the query) and by their rarest
 *   trigram (query contains the trigger), trigger tokens (≥ 2 query tokens, counted with
 *   repetition, in one trigger) and title substrings (≥ 2 query tokens in the title). A
 *   candidate's score is bounded by the weights its matches could give.
 * - Candidates by bound and the no-text lists are merged best first and scored exactly with
 *   `scoreIndexed` until the next one cannot beat the tenth result.
 *
 * The scratch arrays are per handle; `lookup` is synchronous, so lookups never share them at once.
 */
export function createBaselineIndex(abilities: readonly AbilityAvailabilityEntry[]) {
  const state = buildBaselineState(abilities);
  return {
    /** Same answer as `lookupAbilities(query, abilities)`. */
    lookup: (query: AbilityLookupQuery): AbilityLookupResult["matches"] => lookupIn(state, query),
  };
}

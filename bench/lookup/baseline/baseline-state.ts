import type { AbilityAvailabilityEntry } from "../../../shared/abilities/availability";
import { keyOf, rankedAbilities, SEARCHABLE_LANES, type IndexedAbility, type RankedAbilities } from "./baseline-scores";
import { fillLists, narrowestBucket, sortedKeys, substringBuckets, toIdLists, type Buckets, type IdLists } from "./baseline-text-search";

/** The §0C.11C baseline index of one availability snapshot: built once, then read by each lookup (`baseline-index.ts`). */

/** Distinct strings of the searchable abilities, each with its abilities (each once, ascending). */
function groupTexts(items: readonly IndexedAbility[], textsOf: (item: IndexedAbility) => readonly string[]) {
  const ids = new Map<string, number>();
  const texts: string[] = [];
  const owners: number[][] = [];
  items.forEach((item, index) => {
    if (item.lane < 0) return;
    for (const text of textsOf(item)) {
      let id = ids.get(text);
      if (id === undefined) {
        id = texts.length;
        ids.set(text, id);
        texts.push(text);
        owners.push([]);
      }
      const list = owners[id] as number[];
      if (list[list.length - 1] !== index) list.push(index);
    }
  });
  return { texts, owners: toIdLists(owners) };
}

/**
 * Abilities that reach the threshold without text, as sort keys: outside the query's project per
 * lane, and per project id and lane. `projectMembers` lists every ability scoped to a project.
 */
function noTextLists(ranked: RankedAbilities) {
  const plainKeys: number[][] = SEARCHABLE_LANES.map(() => []);
  const projectKeys = new Map<string, number[][]>();
  const projectMembers = new Map<string, number[]>();
  ranked.items.forEach((item, index) => {
    if (item.lane < 0) return;
    const plain = keyOf(ranked, index, 0, 0, item.scope);
    if (plain < ranked.passingKeys) (plainKeys[item.lane] as number[]).push(plain);
    const scoped = keyOf(ranked, index, 0, 0, 2);
    for (const scope of new Set(item.entry.project_scopes)) {
      let members = projectMembers.get(scope);
      if (members === undefined) projectMembers.set(scope, (members = []));
      members.push(index);
      if (scoped >= ranked.passingKeys) continue;
      let keys = projectKeys.get(scope);
      if (keys === undefined) projectKeys.set(scope, (keys = SEARCHABLE_LANES.map(() => [])));
      (keys[item.lane] as number[]).push(scoped);
    }
  });
  return {
    plainLists: plainKeys.map(sortedKeys),
    projectLists: new Map([...projectKeys].map(([scope, keys]) => [scope, keys.map(sortedKeys)])),
    projectMembers,
  };
}

/** The trigger texts with their owners, their substrings, their rarest-trigram keys and their tokens. */
function triggerSearch(items: readonly IndexedAbility[]) {
  const triggers = groupTexts(items, (item) => item.triggers);
  const triggerSubstrings = substringBuckets(triggers.texts);
  // "Query contains trigger": each trigger text under one substring that any query containing it
  // contains too (its rarest trigram, or the whole text when shorter); the empty text in every query.
  const emptyTriggers = triggers.texts.flatMap((text, id) => (text.length === 0 ? [id] : []));
  const keyed = triggers.texts.flatMap((text, id) => (text.length === 0 ? [] : [id]));
  const triggersByKey = fillLists(
    triggerSubstrings.mask + 1,
    Int32Array.from(keyed, (id) => narrowestBucket(triggerSubstrings, triggers.texts[id] as string)),
    Int32Array.from(keyed),
  );
  const tokenIds = new Map<string, number>();
  const tokenTriggerLists: number[][] = [];
  const triggerTokens = toIdLists(
    triggers.texts.map((text, id) => {
      const ids: number[] = [];
      for (const token of new Set(text.split(/\s+/))) {
        let tokenId = tokenIds.get(token);
        if (tokenId === undefined) {
          tokenId = tokenTriggerLists.length;
          tokenIds.set(token, tokenId);
          tokenTriggerLists.push([]);
        }
        (tokenTriggerLists[tokenId] as number[]).push(id);
        ids.push(tokenId);
      }
      return ids;
    }),
  );
  return { triggers, triggerSubstrings, emptyTriggers, triggersByKey, tokenIds, triggerTokens, tokenTriggers: toIdLists(tokenTriggerLists) };
}

/** One snapshot's index and its per-query scratch: an entry is valid where its stamp equals the lookup's epoch. */
export type BaselineState = RankedAbilities &
  ReturnType<typeof noTextLists> &
  ReturnType<typeof triggerSearch> & {
    titles: { texts: string[]; owners: IdLists };
    titleSubstrings: Buckets;
    epoch: number;
    allowed: readonly boolean[];
    candidateCount: number;
    triggerStamp: Int32Array;
    triggerTokensSeen: Int32Array;
    triggerChecked: Int32Array;
    titleStamp: Int32Array;
    titleTokensSeen: Int32Array;
    itemStamp: Int32Array;
    projectStamp: Int32Array;
    itemTrigger: Uint8Array;
    itemTitle: Uint8Array;
    candidates: Int32Array;
    candidateKeys: Float64Array;
  };

export function buildBaselineState(abilities: readonly AbilityAvailabilityEntry[]): BaselineState {
  const count = abilities.length;
  const ranked = rankedAbilities(abilities);
  const noText = noTextLists(ranked);
  const search = triggerSearch(ranked.items);
  const titles = groupTexts(ranked.items, (item) => [item.title]);
  // Every property named (no spread), so that the state keeps one fixed shape the lookups read fast.
  return {
    items: ranked.items,
    byRank: ranked.byRank,
    rankOf: ranked.rankOf,
    laneOf: ranked.laneOf,
    scopeOf: ranked.scopeOf,
    weightClassOf: ranked.weightClassOf,
    passingKeys: ranked.passingKeys,
    plainLists: noText.plainLists,
    projectLists: noText.projectLists,
    projectMembers: noText.projectMembers,
    triggers: search.triggers,
    triggerSubstrings: search.triggerSubstrings,
    emptyTriggers: search.emptyTriggers,
    triggersByKey: search.triggersByKey,
    tokenIds: search.tokenIds,
    triggerTokens: search.triggerTokens,
    tokenTriggers: search.tokenTriggers,
    titles,
    titleSubstrings: substringBuckets(titles.texts),
    epoch: 0,
    allowed: [],
    candidateCount: 0,
    triggerStamp: new Int32Array(search.triggers.texts.length),
    triggerTokensSeen: new Int32Array(search.triggers.texts.length),
    triggerChecked: new Int32Array(search.triggers.texts.length),
    titleStamp: new Int32Array(titles.texts.length),
    titleTokensSeen: new Int32Array(titles.texts.length),
    itemStamp: new Int32Array(count),
    projectStamp: new Int32Array(count),
    itemTrigger: new Uint8Array(count),
    itemTitle: new Uint8Array(count),
    candidates: new Int32Array(count),
    candidateKeys: new Float64Array(count),
  };
}

import { compareCodeUnits, LOOKUP_MAX_RESULTS, LOOKUP_MIN_SCORE, SCORE_EPSILON, searchesLane } from "../agent/lookup/baseline-scorer";
import type { AbilityAvailabilityEntry } from "../shared/abilities/availability";
import type { AbilityLookupQuery, AbilityLookupResult } from "../shared/abilities/lookup-contract";

// The weights of §0C.11C steps 1 and 3–6 by position. Quarantined abilities are never returned, so
// only the three searchable lanes have a position.
const SEARCHABLE_LANES = ["experimental_private", "approved_workspace", "shared_promoted"] as const;
const LANE_WEIGHTS = [0.03, 0.07, 0.1] as const;
const HEALTH_WEIGHTS = [0, 0.05, -0.05] as const; // other, strong, weak
const TRIGGER_WEIGHTS = [0, 0.2, 0.4] as const; // none, ≥ 2 shared tokens, phrase contained
const TITLE_WEIGHTS = [0, 0.2] as const; // fewer than 2 tokens, ≥ 2 tokens
const SCOPE_WEIGHTS = [0, 0.05, 0.15] as const; // scoped elsewhere, global, the query's project

/**
 * §0C.11C steps 1 and 3–7 in the scorer's order of additions, so the result is bit for bit the
 * scorer's. Floating-point addition is monotone: larger text weights never give a smaller total,
 * which lets the index use the weights an ability might have as an upper bound on its score.
 */
function weigh(trigger: number, title: number, scope: number, lane: number, health: number, usable: boolean): number {
  let total = 0;
  total += trigger;
  total += title;
  total += scope;
  total += lane;
  total += health;
  if (!usable) total *= 0.5;
  return Math.min(1, Math.max(0, total));
}

/** Position of a weight combination in `SCORES.position`; `weightClass` is (lane, health, usable). */
function scoreSlot(weightClass: number, trigger: number, title: number, scope: number): number {
  return ((weightClass * 3 + trigger) * 2 + title) * 3 + scope;
}

/**
 * Every score a searchable ability can get, best first (`values`), and for each weight
 * combination the position of its score (`position`). Ordering by (position, rank) is ordering by
 * (score descending, ability_id), with one integer per ability (`key`).
 */
const SCORES = (() => {
  const slots: number[] = [];
  for (const lane of LANE_WEIGHTS) for (const health of HEALTH_WEIGHTS) for (const usable of [false, true]) {
    for (const trigger of TRIGGER_WEIGHTS) for (const title of TITLE_WEIGHTS) for (const scope of SCOPE_WEIGHTS) {
      slots.push(weigh(trigger, title, scope, lane, health, usable));
    }
  }
  const values = [...new Set(slots)].sort((a, b) => b - a);
  return {
    values,
    position: Int32Array.from(slots, (value) => values.indexOf(value)),
    /** Positions below this one reach `LOOKUP_MIN_SCORE`. */
    passing: values.filter((value) => value >= LOOKUP_MIN_SCORE - SCORE_EPSILON).length,
  };
})();

// An ability's key is position × RANK_SPAN + rank, smaller first: exact in a double for any
// snapshot an array can hold.
const RANK_SPAN = 2 ** 31;

interface IndexedAbility {
  entry: AbilityAvailabilityEntry;
  /** Lower-cased trigger phrases and title; the rest is read from `entry` for the few abilities scored. */
  triggers: string[];
  title: string;
  /** Index into SCOPE_WEIGHTS when the query's project is not one of the ability's scopes. */
  scope: number;
  /** Position in SEARCHABLE_LANES; -1 when no lookup may return the ability (quarantined). */
  lane: number;
  /** (lane, checkpoint health, usable_now) as one number, for `scoreSlot`; 0 when quarantined. */
  weightClass: number;
}

/** The exact §0C.11C score of a searchable ability: `scoreAbilityMatch(...).score`, bit for bit. */
function scoreIndexed(item: IndexedAbility, queryLower: string, queryTokens: readonly string[], projectId: string | undefined): number {
  let trigger = 0;
  for (let i = 0; i < item.triggers.length; i += 1) {
    const phrase = item.triggers[i] as string;
    if (queryLower.includes(phrase) || phrase.includes(queryLower)) {
      trigger = 0.4;
      break;
    }
    const tokens = phrase.split(/\s+/);
    let overlap = 0;
    for (const token of queryTokens) if (tokens.includes(token)) overlap += 1;
    if (overlap >= 2) {
      trigger = 0.2;
      break;
    }
  }
  for (const negative of item.entry.negative_triggers) if (queryLower.includes(negative.toLowerCase())) return 0;
  let titleOverlap = 0;
  for (const token of queryTokens) {
    if (item.title.includes(token)) {
      titleOverlap += 1;
      if (titleOverlap >= 2) break;
    }
  }
  const scope = projectId && item.entry.project_scopes.includes(projectId) ? 2 : item.scope;
  const { entry } = item;
  return weigh(trigger, titleOverlap >= 2 ? 0.2 : 0, SCOPE_WEIGHTS[scope] as number, LANE_WEIGHTS[item.lane] as number, HEALTH_WEIGHTS[entry.checkpoint_health === "strong" ? 1 : entry.checkpoint_health === "weak" ? 2 : 0], entry.usable_now);
}

/** Many short lists of ids in two typed arrays: list `n` is `ids[starts[n]]` up to `ids[starts[n + 1]]`. */
interface IdLists {
  starts: Int32Array;
  ids: Int32Array;
}

function toIdLists(lists: ReadonlyArray<readonly number[]>): IdLists {
  const starts = new Int32Array(lists.length + 1);
  lists.forEach((list, n) => {
    starts[n + 1] = (starts[n] as number) + list.length;
  });
  const ids = new Int32Array(starts[lists.length] as number);
  lists.forEach((list, n) => ids.set(list, starts[n]));
  return { starts, ids };
}

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
 * Lists built by counting: entry `n` puts `ids[n]` in list `lists[n]`. Entries come with each
 * list's ids ascending; an id repeated in a row is kept once.
 */
function fillLists(listCount: number, lists: Int32Array, ids: Int32Array): IdLists {
  const starts = new Int32Array(listCount + 1);
  const last = new Int32Array(listCount).fill(-1);
  for (let entry = 0; entry < lists.length; entry += 1) {
    const list = lists[entry] as number;
    if (last[list] === ids[entry]) continue;
    last[list] = ids[entry] as number;
    starts[list + 1] = (starts[list + 1] as number) + 1;
  }
  for (let list = 0; list < listCount; list += 1) starts[list + 1] = (starts[list + 1] as number) + (starts[list] as number);
  const filled = new Int32Array(starts[listCount] as number);
  const next = starts.slice(0, listCount);
  last.fill(-1);
  for (let entry = 0; entry < lists.length; entry += 1) {
    const list = lists[entry] as number;
    if (last[list] === ids[entry]) continue;
    last[list] = ids[entry] as number;
    filled[next[list] as number] = ids[entry] as number;
    next[list] = (next[list] as number) + 1;
  }
  return { starts, ids: filled };
}

// A substring of 1–3 code units as two int32 halves, so that hashing it allocates nothing: the
// first two code units, and the length with the third. A `low` of 0 is no substring.
const gramHigh = (text: string, start: number, length: number) => (text.charCodeAt(start) << 16) | (length > 1 ? text.charCodeAt(start + 1) : 0);
const gramLow = (text: string, start: number, length: number) => (length << 16) | (length > 2 ? text.charCodeAt(start + 2) : 0);

function bucketOf(high: number, low: number, mask: number): number {
  let hash = Math.imul(high ^ Math.imul(low, 0x9e3779b1), 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash & mask;
}

/**
 * Text ids by hashed 1–3 code-unit substring, each bucket's ids ascending. A bucket that more than
 * one substring hashed to is `mixed`, and its texts are verified with `includes`; otherwise
 * `high`/`low` say which substring all its texts hold.
 */
interface Buckets extends IdLists {
  mask: number;
  high: Int32Array;
  low: Int32Array;
  mixed: Uint8Array;
}

/** Buckets of every 1-, 2- and 3-code-unit substring of the texts. */
function substringBuckets(texts: readonly string[]): Buckets {
  let length = 256;
  for (const text of texts) length += text.length;
  const mask = 2 ** Math.min(18, Math.ceil(Math.log2(length))) - 1;
  const high = new Int32Array(mask + 1);
  const low = new Int32Array(mask + 1);
  const mixed = new Uint8Array(mask + 1);
  const entries = Math.max(0, length * 3);
  const buckets = new Int32Array(entries);
  const ids = new Int32Array(entries);
  let entry = 0;
  texts.forEach((text, id) => {
    for (let start = 0; start < text.length; start += 1) {
      for (let size = 1; size <= 3 && start + size <= text.length; size += 1) {
        const gramH = gramHigh(text, start, size);
        const gramL = gramLow(text, start, size);
        const bucket = bucketOf(gramH, gramL, mask);
        if (low[bucket] === 0) {
          high[bucket] = gramH;
          low[bucket] = gramL;
        } else if (high[bucket] !== gramH || low[bucket] !== gramL) {
          mixed[bucket] = 1;
        }
        buckets[entry] = bucket;
        ids[entry] = id;
        entry += 1;
      }
    }
  });
  const lists = fillLists(mask + 1, buckets.subarray(0, entry), ids.subarray(0, entry));
  return { ...lists, mask, high, low, mixed };
}

const bucketSize = (lists: IdLists, list: number) => (lists.starts[list + 1] as number) - (lists.starts[list] as number);

/**
 * The bucket listing every text that contains `pattern` (not empty), with as few others as the
 * index allows: the pattern's own when it has ≤ 3 code units, else its rarest trigram's. -1 when
 * no text contains it.
 */
function narrowestBucket(buckets: Buckets, pattern: string): number {
  let best = -1;
  for (let start = 0; start === 0 || start + 3 <= pattern.length; start += 1) {
    const size = Math.min(3, pattern.length);
    const gramH = gramHigh(pattern, start, size);
    const gramL = gramLow(pattern, start, size);
    const bucket = bucketOf(gramH, gramL, buckets.mask);
    if (buckets.mixed[bucket] === 0 && (buckets.high[bucket] !== gramH || buckets.low[bucket] !== gramL)) return -1;
    if (best < 0 || bucketSize(buckets, bucket) < bucketSize(buckets, best)) best = bucket;
  }
  return best;
}

/** Calls `visit` once for each text id whose text contains `pattern`: exactly `text.includes(pattern)`. */
function forEachContaining(texts: readonly string[], buckets: Buckets, pattern: string, visit: (id: number) => void): void {
  if (pattern.length === 0) {
    for (let id = 0; id < texts.length; id += 1) visit(id);
    return;
  }
  const bucket = narrowestBucket(buckets, pattern);
  if (bucket < 0) return;
  const verify = pattern.length > 3 || buckets.mixed[bucket] === 1;
  for (let at = buckets.starts[bucket] as number; at < (buckets.starts[bucket + 1] as number); at += 1) {
    const id = buckets.ids[at] as number;
    if (!verify || (texts[id] as string).includes(pattern)) visit(id);
  }
}

/** Makes `keys[0..length)` a min-heap. */
function heapify(keys: Float64Array, length: number): void {
  for (let at = (length >> 1) - 1; at >= 0; at -= 1) siftDown(keys, at, length);
}

/** Removes the smallest key of a min-heap; returns the new length. */
function popHeap(keys: Float64Array, length: number): number {
  keys[0] = keys[length - 1] as number;
  siftDown(keys, 0, length - 1);
  return length - 1;
}

function siftDown(keys: Float64Array, from: number, length: number): void {
  const key = keys[from] as number;
  let at = from;
  for (;;) {
    let child = 2 * at + 1;
    if (child >= length) break;
    if (child + 1 < length && (keys[child + 1] as number) < (keys[child] as number)) child += 1;
    if ((keys[child] as number) >= key) break;
    keys[at] = keys[child] as number;
    at = child;
  }
  keys[at] = key;
}

const sortedKeys = (keys: readonly number[]) => Float64Array.from(keys).sort();

/**
 * The §0C.11C lookup over one snapshot: exactly `lookupAbilities(query, abilities)`
 * (baseline-scorer.test.ts compares them on random snapshots) without scoring every ability.
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
  const count = abilities.length;
  // Rank: position in (ability_id, snapshot position) order, the tie order of rankAbilities' stable sort.
  const byRank = abilities.map((_, position) => position);
  byRank.sort((a, b) => compareCodeUnits((abilities[a] as AbilityAvailabilityEntry).ability_id, (abilities[b] as AbilityAvailabilityEntry).ability_id) || a - b);
  const rankOf = new Int32Array(count);
  byRank.forEach((position, rank) => {
    rankOf[position] = rank;
  });

  const items: IndexedAbility[] = abilities.map((entry) => {
    const triggers = entry.trigger_phrases.map((phrase) => phrase.toLowerCase());
    const quarantined = entry.install_lane === "quarantined" || entry.checkpoint_health === "quarantined";
    const lane = quarantined ? -1 : SEARCHABLE_LANES.findIndex((searchable) => searchable === entry.install_lane);
    const health = entry.checkpoint_health === "strong" ? 1 : entry.checkpoint_health === "weak" ? 2 : 0;
    return {
      entry,
      triggers,
      title: entry.title.toLowerCase(),
      scope: entry.project_scopes.length === 0 || entry.project_scopes.includes("*") ? 1 : 0,
      lane,
      weightClass: quarantined ? 0 : (lane * 3 + health) * 2 + (entry.usable_now ? 1 : 0),
    };
  });
  // What bounds and sort keys read, in typed arrays: a lookup may touch thousands of abilities.
  const laneOf = Int8Array.from(items, (item) => item.lane);
  const scopeOf = Uint8Array.from(items, (item) => item.scope);
  const weightClassOf = Uint8Array.from(items, (item) => item.weightClass);
  const passingKeys = SCORES.passing * RANK_SPAN;
  const keyOf = (index: number, trigger: number, title: number, scope: number) =>
    (SCORES.position[scoreSlot(weightClassOf[index] as number, trigger, title, scope)] as number) * RANK_SPAN + (rankOf[index] as number);

  // Abilities that reach the threshold without text, as sort keys: outside the query's project per
  // lane, and per project id and lane. `projectMembers` lists every ability scoped to a project.
  const plainKeys: number[][] = SEARCHABLE_LANES.map(() => []);
  const projectKeys = new Map<string, number[][]>();
  const projectMembers = new Map<string, number[]>();
  items.forEach((item, index) => {
    if (item.lane < 0) return;
    const plain = keyOf(index, 0, 0, item.scope);
    if (plain < passingKeys) (plainKeys[item.lane] as number[]).push(plain);
    const scoped = keyOf(index, 0, 0, 2);
    for (const scope of new Set(item.entry.project_scopes)) {
      let members = projectMembers.get(scope);
      if (members === undefined) projectMembers.set(scope, (members = []));
      members.push(index);
      if (scoped >= passingKeys) continue;
      let keys = projectKeys.get(scope);
      if (keys === undefined) projectKeys.set(scope, (keys = SEARCHABLE_LANES.map(() => [])));
      (keys[item.lane] as number[]).push(scoped);
    }
  });
  const plainLists = plainKeys.map(sortedKeys);
  const projectLists = new Map([...projectKeys].map(([scope, keys]) => [scope, keys.map(sortedKeys)]));

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
  const triggerTokens = toIdLists(triggers.texts.map((text, id) => {
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
  }));
  const tokenTriggers = toIdLists(tokenTriggerLists);
  const titles = groupTexts(items, (item) => [item.title]);
  const titleSubstrings = substringBuckets(titles.texts);

  // Per-query scratch: an entry is valid where its stamp equals the lookup's epoch.
  let epoch = 0;
  let allowed: readonly boolean[] = [];
  let candidateCount = 0;
  const triggerStamp = new Int32Array(triggers.texts.length);
  const triggerTokensSeen = new Int32Array(triggers.texts.length);
  const triggerChecked = new Int32Array(triggers.texts.length);
  const titleStamp = new Int32Array(titles.texts.length);
  const titleTokensSeen = new Int32Array(titles.texts.length);
  const itemStamp = new Int32Array(count);
  const projectStamp = new Int32Array(count);
  const itemTrigger = new Uint8Array(count);
  const itemTitle = new Uint8Array(count);
  const candidates = new Int32Array(count);
  const candidateKeys = new Float64Array(count);

  /** Makes the allowed owners of text `id` candidates, raising their trigger and title levels. */
  const mark = (owners: IdLists, id: number, trigger: number, title: number) => {
    for (let at = owners.starts[id] as number; at < (owners.starts[id + 1] as number); at += 1) {
      const index = owners.ids[at] as number;
      if (!allowed[laneOf[index] as number]) continue;
      if (itemStamp[index] !== epoch) {
        itemStamp[index] = epoch;
        itemTrigger[index] = 0;
        itemTitle[index] = 0;
        candidates[candidateCount] = index;
        candidateCount += 1;
      }
      if ((itemTrigger[index] as number) < trigger) itemTrigger[index] = trigger;
      if (title > 0) itemTitle[index] = title;
    }
  };

  /** Trigger phrases that contain the query, then those the query contains (0.4). */
  const markContainingTriggers = (queryLower: string) => {
    forEachContaining(triggers.texts, triggerSubstrings, queryLower, (id) => {
      triggerChecked[id] = epoch;
      mark(triggers.owners, id, 2, 0);
    });
    const checkContained = (id: number) => {
      if (triggerChecked[id] === epoch) return;
      triggerChecked[id] = epoch;
      if (queryLower.includes(triggers.texts[id] as string)) mark(triggers.owners, id, 2, 0);
    };
    for (const id of emptyTriggers) checkContained(id);
    for (let start = 0; start < queryLower.length; start += 1) {
      for (let size = 1; size <= 3 && start + size <= queryLower.length; size += 1) {
        const bucket = bucketOf(gramHigh(queryLower, start, size), gramLow(queryLower, start, size), triggerSubstrings.mask);
        for (let at = triggersByKey.starts[bucket] as number; at < (triggersByKey.starts[bucket + 1] as number); at += 1) checkContained(triggersByKey.ids[at] as number);
      }
    }
  };

  // Tokens count with repetition and a trigger or title needs ≥ 2. The one token (counted once)
  // with the longest list is not walked but looked for in the texts the other tokens reach: a
  // text holding only that token has 1.

  /** Trigger phrases sharing ≥ 2 query tokens (0.2). */
  const markSharedTokens = (tokenCounts: ReadonlyMap<string, number>) => {
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
        if (seen >= 2 && seen - times < 2) mark(triggers.owners, id, 1, 0);
      }
    }
  };

  /** Titles holding ≥ 2 query tokens as substrings (0.2). The empty token is in every title. */
  const markTitles = (tokenCounts: ReadonlyMap<string, number>) => {
    const inEveryTitle = tokenCounts.get("") ?? 0;
    if (inEveryTitle >= 2) {
      for (let id = 0; id < titles.texts.length; id += 1) mark(titles.owners, id, 0, 1);
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
        if (seen >= 2 && seen - times < 2) mark(titles.owners, id, 0, 1);
      });
    }
  };

  /**
   * The ten best, scored exactly, read best first from the candidates by bound (a heap: most are
   * never read) and from the no-text lists. The lists skip candidates (scored with their text)
   * and, outside the project's own lists, abilities scoped to the queried project.
   */
  const bestTen = (queryLower: string, queryTokens: readonly string[], projectId: string | undefined) => {
    let heapLength = 0;
    for (let at = 0; at < candidateCount; at += 1) {
      const index = candidates[at] as number;
      const key = keyOf(index, itemTrigger[index] as number, itemTitle[index] as number, projectStamp[index] === epoch ? 2 : (scopeOf[index] as number));
      if (key >= passingKeys) continue;
      candidateKeys[heapLength] = key;
      heapLength += 1;
    }
    heapify(candidateKeys, heapLength);
    const lists: Array<{ keys: Float64Array; next: number; plain: boolean }> = [];
    const projectLanes = projectId ? projectLists.get(projectId) : undefined;
    SEARCHABLE_LANES.forEach((_, lane) => {
      if (!allowed[lane]) return;
      lists.push({ keys: plainLists[lane] as Float64Array, next: 0, plain: true });
      if (projectLanes) lists.push({ keys: projectLanes[lane] as Float64Array, next: 0, plain: false });
    });

    const top: Array<{ index: number; rank: number; score: number }> = [];
    const ranksBefore = (score: number, rank: number, other: { rank: number; score: number }) => score > other.score || (score === other.score && rank < other.rank);
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
  };

  return {
    /** Same answer as `lookupAbilities(query, abilities)`. */
    lookup(query: AbilityLookupQuery): AbilityLookupResult["matches"] {
      const queryLower = query.user_query.toLowerCase();
      const queryTokens = queryLower.split(/\s+/);
      const projectId = query.project_id;
      epoch += 1;
      if (epoch === 0x7fffffff) {
        for (const stamps of [triggerStamp, triggerChecked, titleStamp, itemStamp, projectStamp]) stamps.fill(0);
        epoch = 1;
      }
      allowed = SEARCHABLE_LANES.map((lane) => searchesLane(query, lane));
      candidateCount = 0;
      if (projectId) for (const index of projectMembers.get(projectId) ?? []) projectStamp[index] = epoch;

      const tokenCounts = new Map<string, number>();
      for (const token of queryTokens) tokenCounts.set(token, (tokenCounts.get(token) ?? 0) + 1);
      markContainingTriggers(queryLower);
      markSharedTokens(tokenCounts);
      markTitles(tokenCounts);

      return bestTen(queryLower, queryTokens, projectId).map(({ index, score }) => {
        const { entry } = items[index] as IndexedAbility;
        return {
          ability_id: entry.ability_id,
          score,
          install_lane: entry.install_lane,
          usable_now: entry.usable_now,
          ...(entry.reason_unusable === undefined ? {} : { reason_unusable: entry.reason_unusable }),
        };
      });
    },
  };
}

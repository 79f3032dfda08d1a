// Text search structures of the baseline index (baseline-index.ts): id lists in typed arrays, buckets of
// 1- to 3-code-unit substrings, and a min-heap of sort keys.

/** Many short lists of ids in two typed arrays: list `n` is `ids[starts[n]]` up to `ids[starts[n + 1]]`. */
export interface IdLists {
  starts: Int32Array;
  ids: Int32Array;
}

export function toIdLists(lists: ReadonlyArray<readonly number[]>): IdLists {
  const starts = new Int32Array(lists.length + 1);
  lists.forEach((list, n) => {
    starts[n + 1] = (starts[n] as number) + list.length;
  });
  const ids = new Int32Array(starts[lists.length] as number);
  lists.forEach((list, n) => ids.set(list, starts[n]));
  return { starts, ids };
}

/**
 * Lists built by counting: entry `n` puts `ids[n]` in list `lists[n]`. Entries come with each
 * list's ids ascending; an id repeated in a row is kept once.
 */
export function fillLists(listCount: number, lists: Int32Array, ids: Int32Array): IdLists {
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
export const gramHigh = (text: string, start: number, length: number) => (text.charCodeAt(start) << 16) | (length > 1 ? text.charCodeAt(start + 1) : 0);
export const gramLow = (text: string, start: number, length: number) => (length << 16) | (length > 2 ? text.charCodeAt(start + 2) : 0);

export function bucketOf(high: number, low: number, mask: number): number {
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
export interface Buckets extends IdLists {
  mask: number;
  high: Int32Array;
  low: Int32Array;
  mixed: Uint8Array;
}

/** Buckets of every 1-, 2- and 3-code-unit substring of the texts. */
export function substringBuckets(texts: readonly string[]): Buckets {
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

export const bucketSize = (lists: IdLists, list: number) => (lists.starts[list + 1] as number) - (lists.starts[list] as number);

/**
 * The bucket listing every text that contains `pattern` (not empty), with as few others as the
 * index allows: the pattern's own when it has ≤ 3 code units, else its rarest trigram's. -1 when
 * no text contains it.
 */
export function narrowestBucket(buckets: Buckets, pattern: string): number {
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
export function forEachContaining(texts: readonly string[], buckets: Buckets, pattern: string, visit: (id: number) => void): void {
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
export function heapify(keys: Float64Array, length: number): void {
  for (let at = (length >> 1) - 1; at >= 0; at -= 1) siftDown(keys, at, length);
}

/** Removes the smallest key of a min-heap; returns the new length. */
export function popHeap(keys: Float64Array, length: number): number {
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

export const sortedKeys = (keys: readonly number[]) => Float64Array.from(keys).sort();

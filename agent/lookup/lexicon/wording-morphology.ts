/**
 * English morphology the lexicon needs beyond WordNet's own (issue #15): the stem of a word WordNet
 * does not list ("repos" → "repo", "usernames" → "username"), and the known words such a word is
 * made of — a prefix and a word ("rebook"), or two words run together ("username").
 */

/**
 * Prefixes that make a word from a word (English derivational morphology): "rebook", "preorder",
 * "unsubscribe", "ecard". The word made is of the same topic as its base.
 */
const PREFIXES = [
  "re",
  "pre",
  "un",
  "de",
  "dis",
  "mis",
  "non",
  "co",
  "e",
  "over",
  "under",
  "sub",
  "super",
  "multi",
  "auto",
  "self",
  "cross",
  "inter",
  "out",
  "up",
];
/** How close a word WordNet does not list is to the word it is made from by a prefix, and to the parts of a compound. */
export const PART_CLOSENESS = { prefixed: 0.75, head: 0.7, modifier: 0.5 } as const;
/** The shortest part of a compound that is read as a word: "inbox" is "in" and "box", "ebook" needs a prefix. */
const MIN_PART = 3;
/** Suffixes stripped from a word WordNet does not know, longest first, so "repos" and "repo" meet. */
const FALLBACK_SUFFIXES = ["ings", "ing", "ies", "ed", "es", "s"];

/**
 * The known words a word WordNet does not list is made of, with how close each is to it; empty for
 * a word it lists. `known` gives a word's base form WordNet lists, if any.
 */
export function partsOf(word: string, known: (word: string) => string | undefined): ReadonlyMap<string, number> {
  const out = new Map<string, number>();
  if (!/^[a-z]+$/.test(word) || known(word) !== undefined) return out;
  for (const prefix of PREFIXES) {
    const base = word.startsWith(prefix) && word.length - prefix.length >= MIN_PART ? known(word.slice(prefix.length)) : undefined;
    if (base !== undefined) out.set(base, PART_CLOSENESS.prefixed);
  }
  if (out.size > 0) return out;
  // Two known words run together; the longest head first (English compounds are head-final).
  for (let cut = 2; cut <= word.length - MIN_PART; cut += 1) {
    const head = known(word.slice(cut));
    const modifier = known(word.slice(0, cut));
    if (head === undefined || modifier === undefined) continue;
    out.set(head, PART_CLOSENESS.head);
    if (cut >= MIN_PART && !out.has(modifier)) out.set(modifier, PART_CLOSENESS.modifier);
    break;
  }
  return out;
}

export function fallbackStem(word: string): string {
  for (const suffix of FALLBACK_SUFFIXES) {
    if (!word.endsWith(suffix) || word.length - suffix.length < 3) continue;
    // "-es" is a plural after a hissing sound only ("boxes", "caches"); "usernames" loses its "s".
    if (suffix === "es" && !/(s|x|z|ch|sh)es$/.test(word)) continue;
    return word.slice(0, word.length - suffix.length);
  }
  return word;
}

/** Prefixes that make a verb's reversal: "unsubscribe", "unfreeze"; "de-" and "dis-" only in words WordNet does not list ("deselect"), since most it lists are not reversals ("design", "discover"). */
const REVERSING_PREFIXES = ["un", "de", "dis"] as const;

/**
 * The word a word reverses by its prefix ("unsubscribe" → "subscribe", "deselect" → "select"), if
 * any. `known` says whether the lexicon lists a word; "un-" is read before any listed word of three
 * letters or more, "de-" and "dis-" only when the whole word is not listed.
 */
export function reversedBase(word: string, known: (word: string) => boolean): string | undefined {
  if (!/^[a-z]+$/.test(word)) return undefined;
  for (const prefix of REVERSING_PREFIXES) {
    const base = word.slice(prefix.length);
    if (!word.startsWith(prefix) || base.length < MIN_PART || !known(base)) continue;
    if (prefix === "un" || !known(word)) return base;
  }
  return undefined;
}

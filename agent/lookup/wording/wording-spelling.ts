import type { Lexicon } from "../lexicon/wording-lexicon";
import { STOP_WORDS } from "./wording-terms";

/**
 * A request read with its slips of the keyboard mended (issue #15, ninth round): "where is my
 * pakage" is read as "where is my package" before the wording matcher and the sentence encoder
 * see it. One typo in one word took the first set's p@1 from 0.94 to 0.74 (BENCHMARKS.md).
 *
 * Only a word nobody knows is mended — not WordNet (through its base forms), not the request
 * words every request has, not any ability of the snapshot, not two known words run together —
 * and only to a word one slip away (a letter left out, added, changed, or two letters swapped)
 * that is known (for a typed word of five letters, only an ability's word or a function word).
 * Among several, an ability's own word comes first, then the word used most (WordNet's counts),
 * then the first in code-unit order. Words shorter than `SPELLING_MIN_LENGTH`
 * have too many neighbours one slip away and stay as typed, as do capitalised words inside a
 * request (names: "Zillow", "Kowalski") and anything with a digit or an apostrophe.
 */
export const SPELLING_MIN_LENGTH = 5;
/** A typed word this short is read as another only when that one is an ability's word (or a function word: "thier"). */
const SNAPSHOT_ONLY_BELOW = 6;

/** Function words WordNet does not list (it lists content words): known, never mended. */
const UNLISTED_FUNCTION_WORDS: ReadonlySet<string> = new Set(
  "among amongst amid amidst upon unto onto toward towards whilst whereas whether though although unless versus via despite throughout beneath underneath".split(
    " ",
  ),
);

/** Regular endings of a listed word ("packages", "ordered", "stored", "stopped", "copied", "renewing", "storing"), with what they replace. */
const INFLECTED: ReadonlyArray<readonly [string, string]> = [
  ["ies", "y"],
  ["es", ""],
  ["s", ""],
  ["ied", "y"],
  ["ed", ""],
  ["ed", "e"],
  ["ing", ""],
  ["ing", "e"],
];

/** Unknown words already read (each mended once per snapshot); forgotten past this many. */
const MENDED_KEPT = 5_000;

/** Endings of compared adjectives the lexicon's base forms leave alone ("biggest", "happiest"), with what they replace. */
const COMPARED: ReadonlyArray<readonly [string, string]> = [
  ["iest", "y"],
  ["ier", "y"],
  ["est", ""],
  ["er", ""],
  ["est", "e"],
  ["er", "e"],
];

export interface SpellingCorrection {
  typed: string;
  read: string;
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/** A stem with its doubled last letter undone ("stopp" → "stop", "bigg" → "big"); undefined when it has none. */
function undoubled(stem: string): string | undefined {
  return stem.length > 2 && stem[stem.length - 1] === stem[stem.length - 2] ? stem.slice(0, -1) : undefined;
}

/** Every word one slip away from `word` (lower-case letters), each once. */
export function oneSlipAway(word: string): Set<string> {
  const out = new Set<string>();
  for (let at = 0; at <= word.length; at += 1) {
    const head = word.slice(0, at);
    const tail = word.slice(at);
    if (tail.length > 0) out.add(head + tail.slice(1));
    if (tail.length > 1) out.add(head + (tail[1] as string) + (tail[0] as string) + tail.slice(2));
    for (const letter of LETTERS) {
      if (tail.length > 0 && letter !== tail[0]) out.add(head + letter + tail.slice(1));
      out.add(head + letter + tail);
    }
  }
  out.delete(word);
  return out;
}

/** A compared adjective of a known word ("biggest": big, "happiest": happy). */
function isCompared(word: string, lexicon: Lexicon): boolean {
  return COMPARED.some(([ending, base]) => {
    if (!word.endsWith(ending)) return false;
    const stem = word.slice(0, -ending.length);
    return lexicon.has(stem + base) || lexicon.has((undoubled(stem) ?? stem) + base);
  });
}

/** Whether a typed word is known: its base forms (the lexicon's reading of it) are an ability's or WordNet's. */
function isTypedKnown(word: string, lexicon: Lexicon, inSnapshot: (lemma: string) => boolean): boolean {
  if (STOP_WORDS.has(word) || UNLISTED_FUNCTION_WORDS.has(word) || inSnapshot(word)) return true;
  const lemmas = lexicon.lemmas(word);
  return lemmas.some(inSnapshot) || lemmas.some((lemma) => lexicon.has(lemma)) || isCompared(word, lexicon) || lexicon.parts(word).size > 0;
}

/** Whether a listed base form, or the base forms the lexicon gives it, are an ability's words. */
function isAbilityWord(base: string, lexicon: Lexicon, inSnapshot: (lemma: string) => boolean): boolean {
  return inSnapshot(base) || lexicon.lemmas(base).some(inSnapshot);
}

/**
 * What a word one slip away is, read strictly: a function word, a word WordNet lists as written,
 * a regular inflection of one ("packages", "stored", "stopped"), or an ability's own word. The
 * lexicon's looser reading of unknown words (any ending cut off a stem) would make "betaer" a
 * word. (An irregular form WordNet does not list as written, "bought", is not read as a mend: the
 * lexicon's reading of every word one slip away costs milliseconds.) Its base form, and whether
 * it is an ability's.
 */
function slipCandidate(word: string, lexicon: Lexicon, inSnapshot: (lemma: string) => boolean): { base: string; snapshot: boolean } | undefined {
  if (STOP_WORDS.has(word) || UNLISTED_FUNCTION_WORDS.has(word)) return { base: word, snapshot: false };
  if (lexicon.has(word)) return { base: word, snapshot: isAbilityWord(word, lexicon, inSnapshot) };
  for (const [ending, restored] of INFLECTED) {
    if (!word.endsWith(ending) || word.length - ending.length < 2) continue;
    const stem = word.slice(0, -ending.length);
    // A base ending in "e" drops it before "-ed", "-es", "-ing": "living", never "liveing".
    if (restored === "" && /^[ei]/.test(ending) && stem.endsWith("e")) continue;
    const single = undoubled(stem);
    for (const base of [stem + restored, ...(single === undefined ? [] : [single])]) {
      if (lexicon.has(base)) return { base, snapshot: isAbilityWord(base, lexicon, inSnapshot) };
    }
  }
  return inSnapshot(word) ? { base: word, snapshot: true } : undefined;
}

function commonness(base: string, lexicon: Lexicon): number {
  return STOP_WORDS.has(base) || UNLISTED_FUNCTION_WORDS.has(base) ? 0 : lexicon.weight(base);
}

/** The known word one slip away that `word` (unknown, lower case) was most likely meant to be. */
function likeliestMeant(word: string, lexicon: Lexicon, inSnapshot: (lemma: string) => boolean): string | undefined {
  let best: { word: string; snapshot: boolean; commonness: number } | undefined;
  for (const near of oneSlipAway(word)) {
    const known = slipCandidate(near, lexicon, inSnapshot);
    if (known === undefined || (!known.snapshot && word.length < SNAPSHOT_ONLY_BELOW && !STOP_WORDS.has(near))) continue;
    const option = { word: near, snapshot: known.snapshot, commonness: commonness(known.base, lexicon) };
    if (
      best === undefined ||
      (option.snapshot && !best.snapshot) ||
      (option.snapshot === best.snapshot && (option.commonness < best.commonness || (option.commonness === best.commonness && option.word < best.word)))
    ) {
      best = option;
    }
  }
  return best?.word;
}

/**
 * Reads a request's words as its abilities' snapshot and the lexicon know them. `inSnapshot`: whether
 * a base form is an ability's word (the wording index's vocabulary).
 */
export function createSpellingReader(lexicon: Lexicon, inSnapshot: (lemma: string) => boolean) {
  const mended = new Map<string, string | undefined>();
  const mend = (word: string): string | undefined => {
    if (mended.has(word)) return mended.get(word);
    const meant = likeliestMeant(word, lexicon, inSnapshot);
    if (mended.size >= MENDED_KEPT) mended.clear();
    mended.set(word, meant);
    return meant;
  };

  return {
    /** The request with each unknown word that is one slip from a known word read as that word, and what was mended. */
    read(text: string): { text: string; corrections: SpellingCorrection[] } {
      const corrections: SpellingCorrection[] = [];
      let first = true;
      const read = text.replace(/[\p{L}\p{N}'’]+/gu, (token) => {
        const atStart = first;
        first = false;
        if (token.length < SPELLING_MIN_LENGTH || !/^[A-Za-z]+$/.test(token)) return token;
        if (/[A-Z]/.test(token.slice(1)) || (!atStart && /^[A-Z]/.test(token))) return token;
        const word = token.toLowerCase();
        if (isTypedKnown(word, lexicon, inSnapshot)) return token;
        const meant = mend(word);
        if (meant === undefined) return token;
        corrections.push({ typed: token, read: meant });
        return meant;
      });
      return { text: read, corrections };
    },
  };
}

export type SpellingReader = ReturnType<typeof createSpellingReader>;

/** How explain-match says what it mended. */
export function spellingReason(corrections: readonly SpellingCorrection[]): string | undefined {
  if (corrections.length === 0) return undefined;
  return `spelling: read ${corrections.map(({ typed, read }) => `"${typed}" as "${read}"`).join(", ")} (as typed, neither an ability's word nor a dictionary word)`;
}

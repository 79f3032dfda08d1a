import type { Lexicon } from "./wording-lexicon";
import { STOP_WORDS } from "./wording-terms";

/**
 * A request read with its slips of the keyboard mended (issue #15, ninth round): "where is my
 * pakage" is read as "where is my package" before the wording matcher and the sentence encoder
 * see it. One typo in one word took the first set's p@1 from 0.94 to 0.74 (BENCHMARKS.md).
 *
 * Only a word nobody knows is mended — not WordNet (through its base forms), not the request
 * words every request has, not any ability of the snapshot, not two known words run together —
 * and only to a word one slip away (a letter left out, added, changed, or two letters swapped)
 * that is known (for a typed word of five letters, only an ability's word). Among several, an ability's own word comes first, then the word used most
 * (WordNet's counts), then the first in code-unit order. Words shorter than `SPELLING_MIN_LENGTH`
 * have too many neighbours one slip away and stay as typed, as do capitalised words inside a
 * request (names: "Zillow", "Kowalski") and anything with a digit or an apostrophe.
 */
export const SPELLING_MIN_LENGTH = 5;
/** A typed word this short is read as another only when that one is an ability's word. */
const SNAPSHOT_ONLY_BELOW = 6;

/** Function words WordNet does not list (it lists content words): known, never mended. */
const UNLISTED_FUNCTION_WORDS: ReadonlySet<string> = new Set(
  "among amongst amid amidst upon unto onto toward towards whilst whereas whether though although unless versus via despite throughout beneath underneath".split(" "),
);

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

/**
 * Reads a request's words as its abilities' snapshot and the lexicon know them. `inSnapshot`: whether
 * a base form is an ability's word (the wording index's vocabulary).
 */
export function createSpellingReader(lexicon: Lexicon, inSnapshot: (lemma: string) => boolean) {
  /** A compared adjective of a known word ("biggest": big, "happiest": happy). */
  const compared = (word: string): boolean =>
    COMPARED.some(([ending, base]) => {
      if (!word.endsWith(ending)) return false;
      const stem = word.slice(0, -ending.length);
      const undoubled = stem.length > 2 && stem[stem.length - 1] === stem[stem.length - 2] ? stem.slice(0, -1) : stem;
      return lexicon.has(stem + base) || lexicon.has(undoubled + base);
    });
  const knownAs = (word: string): "snapshot" | "lexicon" | undefined => {
    if (STOP_WORDS.has(word) || UNLISTED_FUNCTION_WORDS.has(word)) return "lexicon";
    const lemmas = lexicon.lemmas(word);
    if (inSnapshot(word) || lemmas.some(inSnapshot)) return "snapshot";
    return lemmas.some((lemma) => lexicon.has(lemma)) ? "lexicon" : undefined;
  };
  const commonness = (word: string): number => (STOP_WORDS.has(word) ? 0 : Math.min(...lexicon.lemmas(word).map((lemma) => lexicon.weight(lemma)), 1));
  const mended = new Map<string, string | undefined>();

  /** The known word one slip away that `word` (unknown, lower case) was most likely meant to be. */
  const mend = (word: string): string | undefined => {
    if (mended.has(word)) return mended.get(word);
    let best: { word: string; snapshot: boolean; commonness: number } | undefined;
    for (const candidate of oneSlipAway(word)) {
      const known = knownAs(candidate);
      if (known === undefined || (known === "lexicon" && word.length < SNAPSHOT_ONLY_BELOW)) continue;
      const option = { word: candidate, snapshot: known === "snapshot", commonness: commonness(candidate) };
      if (
        best === undefined ||
        (option.snapshot && !best.snapshot) ||
        (option.snapshot === best.snapshot && (option.commonness < best.commonness || (option.commonness === best.commonness && option.word < best.word)))
      ) {
        best = option;
      }
    }
    mended.set(word, best?.word);
    return best?.word;
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
        if (knownAs(word) !== undefined || compared(word) || lexicon.parts(word).size > 0) return token;
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

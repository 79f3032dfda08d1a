import type { Lexicon } from "../lexicon/wording-lexicon";

/**
 * Normalization of the wording matcher (issue #15): text → the words that carry its meaning, each
 * with its base forms. Case, accents and punctuation go; contractions are expanded; words that
 * carry no meaning in a request (function words, and the way people ask an assistant for
 * something: "please", "can you", "help me", "I want to") are dropped; each remaining word gets its
 * base forms from the lexicon ("bought" → "buy", "invoices" → "invoice").
 */

const CONTRACTIONS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bcan['’]t\b/g, "can not"],
  [/\bwon['’]t\b/g, "will not"],
  [/\bshan['’]t\b/g, "shall not"],
  [/n['’]t\b/g, " not"],
  [/['’]re\b/g, " are"],
  [/['’]m\b/g, " am"],
  [/['’]ll\b/g, " will"],
  [/['’]ve\b/g, " have"],
  [/['’]d\b/g, " would"],
  // Possessive or "is": neither carries meaning here.
  [/['’]s\b/g, ""],
];

/** English function words (articles, pronouns, auxiliaries, prepositions, conjunctions, quantifiers). */
const FUNCTION_WORDS = `a about above after again against all also am an and any are as at be been before being below
between both but by can could did do does doing down during each either else ever every everything few for from further had
has have having he her here hers herself him himself his how i if in into is it its itself just let me might mine more most
much must my myself neither no nor not now of off on once only or other our ours ourselves out over own same shall she
should so some something somebody someone such than that the their theirs them themselves then there these they this those
through to too under until up us very was we were what whatever when where which while who whom whose why will with would
yet you your yours yourself yourselves anything anyone thing things stuff lot lots bit`;

/**
 * How people ask an assistant for something ("please could you help me …", "I need to …", "go
 * ahead and …"): the phrasing of our own domain, the one hand-written list the issue allows.
 */
const REQUEST_WORDS = `please pls kindly help assist want wanna need needs like love able go ahead try gonna going
hey hi hello thanks thank ok okay sure quickly now today`;

export const STOP_WORDS: ReadonlySet<string> = new Set(`${FUNCTION_WORDS} ${REQUEST_WORDS}`.split(/\s+/).filter(Boolean));

const OBJECT_PRONOUNS: ReadonlySet<string> = new Set(["me", "us", "him", "her", "them", "it", "you"]);

/**
 * How many words that carry meaning a base form stands for: 2 for "display_name" or "credit_card",
 * 1 for "sign_up" or "out_of_office" (their other words are function words) and for a single word.
 * The title's share a request covers counts in these words, so finding "name" covers half of
 * "display name", not all of it.
 */
export function contentSize(lemma: string): number {
  if (!lemma.includes("_")) return 1;
  return Math.max(1, lemma.split("_").filter((part) => part.length > 0 && !STOP_WORDS.has(part)).length);
}

/** One word of a text that carries meaning: as written (lower case) and its base forms. */
export interface Term {
  word: string;
  lemmas: readonly string[];
}

/** Lower case, accents off, contractions expanded, anything but letters and digits a space. */
export function normalizeText(text: string): string {
  let out = text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "");
  for (const [pattern, replacement] of CONTRACTIONS) out = out.replace(pattern, replacement);
  return out.replace(/[^a-z0-9]+/g, " ").trim();
}

/**
 * The ways WordNet may list a phrase of `words` as one base form ("sign_up", "day_off",
 * "mailing_list"): as written, or with the verb or head inflected ("signing up", "days off",
 * "mailing lists"), the inflected word being the first or the last (WordNet's morphy for collocations).
 */
function collocationsOf(words: readonly string[], lexicon: Lexicon): string[] {
  const first = words[0] as string;
  const last = words[words.length - 1] as string;
  const middle = words.slice(1, -1);
  const forms = [words.join("_")];
  for (const lemma of lexicon.lemmas(first)) forms.push([lemma, ...middle, ...(words.length > 1 ? [last] : [])].join("_"));
  for (const lemma of lexicon.lemmas(last)) forms.push([first, ...middle, lemma].join("_"));
  return [...new Set(forms)].filter((form) => lexicon.has(form));
}

/** The longest phrase WordNet knows as one, of up to three words: its base form and its length. */
function collocationAt(words: readonly string[], at: number, lexicon: Lexicon): { lemma: string; length: number } | undefined {
  for (let length = 3; length >= 2; length -= 1) {
    const phrase = words.slice(at, at + length);
    if (phrase.length < length) continue;
    // A phrase of function words only ("out of", "get up") says nothing more than its words.
    if (phrase.every((word) => STOP_WORDS.has(word))) continue;
    const lemma = collocationsOf(phrase, lexicon)[0];
    if (lemma !== undefined) return { lemma, length };
  }
  return undefined;
}

/** The words of a text that carry meaning, in order, each once. */
export function termsOf(text: string, lexicon: Lexicon): Term[] {
  const words = normalizeText(text)
    .split(" ")
    .filter((word) => word.length > 0);
  const terms: Term[] = [];
  const seen = new Set<string>();
  const push = (word: string, joined: string, parts: readonly string[]) => {
    if (seen.has(joined)) return;
    seen.add(joined);
    terms.push({
      word,
      lemmas: [joined, ...parts.filter((part) => !STOP_WORDS.has(part)).flatMap((part) => lemmasOf(part, lexicon))].filter(
        (lemma, at, all) => all.indexOf(lemma) === at,
      ),
    });
  };
  for (let at = 0; at < words.length; at += 1) {
    const word = words[at] as string;
    // A verb and its particle around a pronoun ("sign me up", "check us in", "signing them up"): the verb WordNet knows as one.
    const particle = words[at + 2];
    if (particle !== undefined && OBJECT_PRONOUNS.has(words[at + 1] as string) && !STOP_WORDS.has(word)) {
      const joined = collocationsOf([word, particle], lexicon)[0];
      if (joined !== undefined) {
        push(`${word} ${particle}`, joined, [word, particle]);
        at += 2;
        continue;
      }
    }
    // Words WordNet knows as one ("check in", "sign up", "days off", "mailing lists", "point of sale").
    const collocation = collocationAt(words, at, lexicon);
    if (collocation !== undefined) {
      const phrase = words.slice(at, at + collocation.length);
      push(phrase.join(" "), collocation.lemma, phrase);
      at += collocation.length - 1;
      continue;
    }
    if (STOP_WORDS.has(word) || seen.has(word)) continue;
    seen.add(word);
    terms.push({ word, lemmas: lemmasOf(word, lexicon) });
  }
  return terms;
}

function lemmasOf(word: string, lexicon: Lexicon): readonly string[] {
  // A number is itself: "2024" has no base form to look for.
  return /^\d+$/.test(word) ? [word] : lexicon.lemmas(word);
}

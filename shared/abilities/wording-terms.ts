import type { Lexicon } from "./wording-lexicon";

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

/** One word of a text that carries meaning: as written (lower case) and its base forms. */
export interface Term {
  word: string;
  lemmas: readonly string[];
}

/** Lower case, accents off, contractions expanded, anything but letters and digits a space. */
export function normalizeText(text: string): string {
  let out = text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  for (const [pattern, replacement] of CONTRACTIONS) out = out.replace(pattern, replacement);
  return out.replace(/[^a-z0-9]+/g, " ").trim();
}

/** The words of a text that carry meaning, in order, each once. */
export function termsOf(text: string, lexicon: Lexicon): Term[] {
  const words = normalizeText(text).split(" ").filter((word) => word.length > 0);
  const terms: Term[] = [];
  const seen = new Set<string>();
  for (let at = 0; at < words.length; at += 1) {
    const word = words[at] as string;
    // A verb and its particle around a pronoun ("sign me up", "check us in", "turn it off"): the verb WordNet knows as one.
    const particle = words[at + 2];
    if (particle !== undefined && OBJECT_PRONOUNS.has(words[at + 1] as string) && !STOP_WORDS.has(word) && lexicon.has(`${word}_${particle}`)) {
      const joined = `${word}_${particle}`;
      if (!seen.has(joined)) {
        seen.add(joined);
        terms.push({ word: `${word} ${particle}`, lemmas: [joined, ...lemmasOf(word, lexicon), ...(STOP_WORDS.has(particle) ? [] : lemmasOf(particle, lexicon))] });
      }
      at += 2;
      continue;
    }
    // Two words WordNet knows as one ("check in", "sign up", "out of office" is three: not joined).
    const next = words[at + 1];
    if (next !== undefined && lexicon.has(`${word}_${next}`) && !(STOP_WORDS.has(word) && STOP_WORDS.has(next))) {
      const joined = `${word}_${next}`;
      if (!seen.has(joined)) {
        seen.add(joined);
        terms.push({ word: `${word} ${next}`, lemmas: [joined, ...lemmasOf(word, lexicon), ...(STOP_WORDS.has(next) ? [] : lemmasOf(next, lexicon))] });
      }
      at += 1;
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

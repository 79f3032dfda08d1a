import type { TriggerTests } from "../emit-skill";

/** Most tests of each kind a proposal keeps (ProposalTriggerTestsSchema). */
export const MAX_TESTS_PER_KIND = 60;
/** Generated paraphrases per example the user gave, and of the skill's own phrases per request. */
const PARAPHRASES_PER_EXAMPLE = 2;
const GENERATED_PARAPHRASES = 3;
const GENERATED_NEGATIVES = 3;

const PARAPHRASE_TEMPLATES: ReadonlyArray<(core: string) => string> = [
  (core) => `could you ${core} for me`,
  (core) => `i need to ${core}`,
  (core) => `please ${core} now`,
  (core) => `would you ${core}`,
  (core) => `time to ${core}`,
  (core) => `go ahead and ${core} now`,
];

/**
 * Requests about something else entirely. Phrased without short words: §0C.11C counts a query
 * word found anywhere inside the title, so "is" or "the" would make any request look related.
 */
const UNRELATED_REQUESTS: readonly string[] = [
  "schedule dentist appointment thursday",
  "convert celsius temperatures",
  "recommend vegetarian recipes",
  "compose birthday greeting",
  "calculate mortgage repayments",
  "explain photosynthesis simply",
  "suggest weekend hiking routes",
  "compare smartphone cameras",
  "identify constellations overhead",
  "forecast tomorrow's rainfall",
  "summarize quarterly earnings",
  "translate paragraph into french",
];

const tidy = (text: string) => text.trim().replace(/\s+/g, " ");
const key = (text: string) => tidy(text).toLowerCase();

/** The request without its politeness, so a paraphrase does not read "could you please can you …". */
function coreOf(example: string): string {
  return key(example)
    .replace(/[.!?]+$/, "")
    .replace(/^(please|can you|could you|would you|help me|i need to|go ahead and)\s+/, "")
    .trim();
}

/**
 * "Request More Tests" (§0C.18): the tests to add to a proposal — the user's own examples, two
 * paraphrases of each, three more paraphrases of the skill's phrases, and three requests about
 * something unrelated — leaving out any the proposal already has. Deterministic; nothing is
 * removed, and whether each passes is for the next validation to say.
 */
export function moreTriggerTests(
  current: TriggerTests,
  skill: { title: string; triggers: readonly string[] },
  request: { positive_examples: readonly string[]; negative_examples: readonly string[] },
): TriggerTests {
  const seen = new Set([...current.positive, ...current.paraphrases, ...current.negative].map(key));
  const fresh = (text: string) => {
    const clean = tidy(text).slice(0, 240);
    if (clean.length === 0 || seen.has(key(clean))) return undefined;
    seen.add(key(clean));
    return clean;
  };
  const room = (kind: keyof TriggerTests) => MAX_TESTS_PER_KIND - current[kind].length;
  const take = (candidates: Iterable<string>, limit: number) => {
    const out: string[] = [];
    for (const candidate of candidates) {
      if (out.length >= limit) break;
      const added = fresh(candidate);
      if (added !== undefined) out.push(added);
    }
    return out;
  };

  const positive = take(request.positive_examples, room("positive"));
  const negative = take(request.negative_examples, room("negative"));

  const paraphrasesOf = function* (examples: readonly string[], perExample: number) {
    for (const example of examples) {
      const core = coreOf(example);
      if (core.length === 0) continue;
      let made = 0;
      for (const template of PARAPHRASE_TEMPLATES) {
        if (made >= perExample) break;
        const candidate = template(core);
        if (!seen.has(key(candidate))) {
          made += 1;
          yield candidate;
        }
      }
    }
  };
  const paraphraseRoom = room("paraphrases");
  const ofExamples = take(paraphrasesOf(positive, PARAPHRASES_PER_EXAMPLE), paraphraseRoom);
  const ofSkill = take(
    paraphrasesOf([skill.title, ...skill.triggers], GENERATED_PARAPHRASES),
    Math.min(GENERATED_PARAPHRASES, paraphraseRoom - ofExamples.length),
  );

  // Unrelated means no word of the request appears in the title or a trigger phrase (§0C.11C's
  // own notion of overlap); a request that shares one is not a fair "must not find it" test.
  const related = [skill.title, ...skill.triggers].map(key);
  const unrelated = UNRELATED_REQUESTS.filter(
    (candidate) =>
      !key(candidate)
        .split(" ")
        .some((word) => related.some((text) => text.includes(word))),
  );
  const generatedNegatives = take(unrelated, Math.min(GENERATED_NEGATIVES, room("negative") - negative.length));

  return { positive, paraphrases: [...ofExamples, ...ofSkill], negative: [...negative, ...generatedNegatives] };
}

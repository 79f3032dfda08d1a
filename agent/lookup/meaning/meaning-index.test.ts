import { describe, expect, it } from "vitest";
import type { AbilityAvailabilityEntry } from "../../../shared/abilities/availability";
import { usableEntry } from "../../test-support/baseline-entries";
import { AbilityLookupQuerySchema } from "../../../shared/abilities/lookup-contract";
import { blendMatches, blendedText, createMeaningIndex, explainBlended, MEANING_ALONE_MIN, MEANING_SHORTLIST, meaningPhrases } from "./meaning-index";
import type { WordingExplanation } from "../wording/wording-matcher";
import { wordingScore } from "../wording/wording-score";
import type { WordingMatch } from "../wording/wording-rank";

// Vectors are given here (the encoder's job is the agent's): a test picks the angles it needs.
const entry = usableEntry;
const query = (text: string) => AbilityLookupQuerySchema.parse({ user_query: text, schema_version: 1 });
/** A unit vector in the plane of axes 0 and `axis` at cosine `c` with axis 0. */
const at = (c: number, axis = 1, dims = 8) => {
  const vector = new Float32Array(dims);
  vector[0] = c;
  vector[axis] = Math.sqrt(1 - c * c);
  return vector;
};

describe("meaningPhrases", () => {
  it("reads title, description, when-to-use lines, triggers, aliases and trigger tests once each, in lower case, without the compiler's templates of a phrase it has", () => {
    const phrases = meaningPhrases({
      entry: entry({
        ability_id: "learned.a",
        title: "Export invoices",
        trigger_phrases: ["export invoices", "help me export invoices", "can you export invoices", "can you believe it"],
        aliases: ["Invoice export"],
      }),
      description: "Export invoices",
      when_to_use: ["When the accountant needs a CSV"],
      trigger_tests: ["Export invoices", "could you export invoices for me", "pull the invoices into a spreadsheet"],
    });
    expect(phrases).toEqual([
      "export invoices",
      "when the accountant needs a csv",
      "can you believe it",
      "invoice export",
      "could you export invoices for me",
      "pull the invoices into a spreadsheet",
    ]);
  });
});

describe("createMeaningIndex", () => {
  const documents = [
    { entry: entry({ ability_id: "learned.near", title: "Near", trigger_phrases: ["near trigger"] }) },
    { entry: entry({ ability_id: "learned.far", title: "Far", trigger_phrases: [] }) },
  ];
  const vectors = new Map([
    ["near", at(0.2, 2)],
    ["near trigger", at(0.9, 3)],
    ["far", at(0.1, 4)],
  ]);

  it("gives each ability its closest phrase to the request and the cosine", () => {
    const index = createMeaningIndex(documents, (phrase) => vectors.get(phrase));
    const found = index.nearest(at(1));
    expect(found.get("learned.near")?.phrase).toBe("near trigger");
    expect(found.get("learned.near")?.similarity).toBeCloseTo(0.9, 5);
    expect(found.get("learned.far")?.similarity).toBeCloseTo(0.1, 5);
    // One ability alone, as explain-match reads it: the same answer; its entry from the snapshot.
    expect(index.closenessOf(at(1), "learned.near")).toEqual(found.get("learned.near"));
    expect(index.closenessOf(at(1), "learned.none")).toBeUndefined();
    expect(index.entryOf("learned.far")?.title).toBe("Far");
  });

  it("compares every phrase only for the abilities closest by their mean, and for those asked for", () => {
    const many = Array.from({ length: MEANING_SHORTLIST + 5 }, (_, n) => ({
      entry: entry({ ability_id: `learned.a${n}`, title: `a${n}`, trigger_phrases: [] }),
    }));
    // a0 is the farthest by its mean (and its only phrase): outside the shortlist unless asked for.
    const index = createMeaningIndex(many, (phrase) => at(phrase === "a0" ? 0 : 0.5 + Number(phrase.slice(1)) / 100, 1 + (Number(phrase.slice(1)) % 7)));
    expect(index.nearest(at(1)).size).toBe(MEANING_SHORTLIST);
    expect(index.nearest(at(1)).has("learned.a0")).toBe(false);
    expect(index.nearest(at(1), ["learned.a0"]).has("learned.a0")).toBe(true);
  });

  it("knows nothing of abilities whose phrases have no vector, and of a request vector of another size", () => {
    const index = createMeaningIndex(documents, (phrase) => (phrase === "far" ? undefined : vectors.get(phrase)));
    expect(index.nearest(at(1)).has("learned.far")).toBe(false);
    expect(index.nearest(new Float32Array(3)).size).toBe(0);
  });
});

describe("blendMatches", () => {
  const entries = new Map(
    [
      entry({ ability_id: "learned.worded", title: "Worded" }),
      entry({ ability_id: "learned.meant", title: "Meant" }),
      entry({ ability_id: "learned.loose", title: "Loose" }),
      entry({ ability_id: "learned.refused", title: "Refused" }),
    ].map((value) => [value.ability_id, value]),
  );
  const worded: WordingMatch = { ability_id: "learned.worded", score: 0.5, text: 0.45, rank_text: 0.3, install_lane: "approved_workspace", usable_now: true };
  const closeness = new Map([
    ["learned.worded", { similarity: 0.3, phrase: "worded" }],
    ["learned.meant", { similarity: 0.8, phrase: "meant" }],
    ["learned.loose", { similarity: MEANING_ALONE_MIN - 0.01, phrase: "loose" }],
    ["learned.refused", { similarity: 0.95, phrase: "refused" }],
  ]);
  const refusal = (id: string) => (id === "learned.refused" ? 'negative_trigger_match: "x"' : undefined);

  it("keeps what the wording matched, adds what is close enough in meaning alone, never what the hard gates refuse; ranks by the blend", () => {
    const matches = blendMatches(query("anything"), [worded], closeness, (id) => entries.get(id), refusal);
    expect(matches.map((match) => match.ability_id)).toEqual(["learned.meant", "learned.worded"]);
    const meant = entries.get("learned.meant") as AbilityAvailabilityEntry;
    expect(matches[0]?.score).toBeCloseTo(wordingScore(blendedText(0, 0.8), meant, undefined), 10);
    expect(matches[1]?.score).toBeCloseTo(wordingScore(blendedText(0.3, 0.3), entries.get("learned.worded") as AbilityAvailabilityEntry, undefined), 10);
  });

  it("asks the gates about an ability found by meaning alone as such (an action clash refuses it), never about one its words found", () => {
    const clashOnlyByMeaning = (id: string, byMeaningAlone = false) =>
      id === "learned.refused" ? "quarantined" : byMeaningAlone && (id === "learned.meant" || id === "learned.worded") ? "verb_clash" : undefined;
    const matches = blendMatches(query("anything"), [worded], closeness, (id) => entries.get(id), clashOnlyByMeaning);
    expect(matches.map((match) => match.ability_id)).toEqual(["learned.worded"]);
  });

  it("is the wording matcher's answer, rescored, when nothing is close in meaning", () => {
    const matches = blendMatches(query("anything"), [worded], new Map(), (id) => entries.get(id), refusal);
    expect(matches.map((match) => match.ability_id)).toEqual(["learned.worded"]);
  });
});

describe("explainBlended", () => {
  const ability = entry({ ability_id: "learned.meant", title: "Meant" });
  const short: WordingExplanation = {
    matched: false,
    score: 0.1,
    text: 0.2,
    rank_text: 0.2,
    reasons: ["wording text score 0.20"],
    rejections: ["wording covers 20 % of the request, below 40 %"],
    text_rejection: "wording covers 20 % of the request, below 40 %",
  };

  it("matches on meaning what the wording covers too little of, and says which phrase it reads like", () => {
    const verdict = explainBlended(query("bump up my credit line"), ability, short, { similarity: 0.7, phrase: "increase the credit card limit" });
    expect(verdict.matched).toBe(true);
    expect(verdict.rejections).toEqual([]);
    expect(verdict.reasons.at(-1)).toContain('reads closest to "increase the credit card limit" (similarity 0.70; close enough to match on its own)');
  });

  it("keeps a hard rejection whatever the meaning, and the wording's when the meaning is not close enough", () => {
    const refused = explainBlended(query("x"), ability, { ...short, rejections: [...short.rejections, "quarantined"] }, { similarity: 0.9, phrase: "meant" });
    expect(refused.matched).toBe(false);
    expect(refused.rejections).toEqual(["quarantined"]);
    const far = explainBlended(query("x"), ability, short, { similarity: 0.2, phrase: "meant" });
    expect(far.matched).toBe(false);
    expect(far.rejections).toEqual(short.rejections);
    expect(far.reasons.at(-1)).toContain(`on its own it matches from ${MEANING_ALONE_MIN.toFixed(2)}`);
  });

  it("refuses, with the reason, an ability close in meaning alone whose action the request's clashes with", () => {
    const clash = 'verb_clash: the request asks for another action than "export"';
    const verdict = explainBlended(query("delete the invoices"), ability, short, { similarity: 0.66, phrase: "export the invoices" }, clash);
    expect(verdict.matched).toBe(false);
    expect(verdict.rejections).toEqual([clash]);
    // Found by its words, the clash only ranks it lower (the wording matcher's own rule).
    expect(
      explainBlended(query("x"), ability, { ...short, matched: true, rejections: [], text_rejection: undefined }, { similarity: 0.66, phrase: "p" }, clash)
        .matched,
    ).toBe(true);
  });
});

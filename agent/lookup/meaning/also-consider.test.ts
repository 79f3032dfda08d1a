import { beforeAll, describe, expect, it } from "vitest";
import { usableEntry } from "../../test-support/baseline-entries";
import { AbilityLookupQuerySchema, AbilityLookupResultSchema, TEXT_MIN, type AbilityLookupQuery } from "../../../shared/abilities/lookup-contract";
import { loadWordNetLexicon } from "../lexicon/wordnet-lexicon";
import type { Lexicon } from "../lexicon/wording-lexicon";
import { withDomainPhrasing } from "../wording/wording-domain";
import { createWordingIndex, type WordingNearMiss } from "../wording/wording-index";
import type { LookupDocument } from "../wording/wording-score";
import {
  ALSO_CONSIDER_FAINT_SIMILARITY,
  ALSO_CONSIDER_MAX,
  ALSO_CONSIDER_MIN_SIMILARITY,
  alsoConsider,
  lookupTiers,
  type AlsoConsiderSources,
} from "./also-consider";
import { createMeaningIndex, lookupReading, type Closeness } from "./meaning-index";

const entry = usableEntry;
const query = (text: string): AbilityLookupQuery =>
  AbilityLookupQuerySchema.parse({
    user_query: text,
    install_lanes_allowed: ["experimental_private", "approved_workspace", "shared_promoted"],
    schema_version: 1,
  });
/** A unit vector in the plane of axes 0 and `axis` at cosine `c` with axis 0. */
const at = (c: number, axis = 1, dims = 32) => {
  const vector = new Float32Array(dims);
  vector[0] = c;
  vector[axis] = Math.sqrt(1 - c * c);
  return vector;
};

describe("alsoConsider (issue #34)", () => {
  const ids = Array.from({ length: 8 }, (_, n) => `learned.a${n}`);
  const entries = new Map(ids.map((id) => [id, entry({ ability_id: id, title: id })]));
  // a0 closest, a7 farthest: every one above the floor.
  const closeness = new Map<string, Closeness>(ids.map((id, n) => [id, { similarity: 0.55 - n * 0.02, phrase: `phrase of ${id}` }]));
  const sources = (over: Partial<AlsoConsiderSources> = {}): AlsoConsiderSources => ({
    entryOf: (id) => entries.get(id),
    refusal: () => undefined,
    sharedWords: () => [],
    closenessOf: () => undefined,
    ...over,
  });

  it("gives at most five, best first, each low confidence with the phrase it reads close to", () => {
    const tier = alsoConsider(query("anything"), [], [], closeness, sources());
    expect(tier).toHaveLength(ALSO_CONSIDER_MAX);
    expect(tier.map((item) => item.ability_id)).toEqual(ids.slice(0, 5));
    expect(tier.every((item) => item.confidence === "low")).toBe(true);
    expect(tier[0]?.reason).toBe('reads close to "phrase of learned.a0" (similarity 0.55)');
    for (let n = 1; n < tier.length; n += 1) expect(tier[n - 1]?.score).toBeGreaterThan(tier[n]?.score as number);
  });

  it("never repeats a match, and never gives what a hard gate refuses", () => {
    const refused = new Set(["learned.a2", "learned.a3"]);
    const tier = alsoConsider(
      query("anything"),
      [{ ability_id: "learned.a0" }],
      [],
      closeness,
      sources({ refusal: (id) => (refused.has(id) ? "quarantined" : undefined) }),
    );
    expect(tier.map((item) => item.ability_id)).toEqual(["learned.a1", "learned.a4", "learned.a5", "learned.a6", "learned.a7"]);
  });

  it("is empty when nothing shares a meaning above the floor or any of the request's words", () => {
    const far = new Map<string, Closeness>(ids.map((id) => [id, { similarity: ALSO_CONSIDER_MIN_SIMILARITY - 0.01, phrase: id }]));
    expect(alsoConsider(query("anything"), [], [], far, sources())).toEqual([]);
    // One shared word is enough, and says so; under the floor, the next closest then fill the list after it, said to read faintly.
    const shared = alsoConsider(query("anything"), [], [], far, sources({ sharedWords: (id) => (id === "learned.a6" ? ["invoices"] : []) }));
    expect(shared.map((item) => [item.ability_id, item.reason])).toEqual([
      ["learned.a6", 'shares the word "invoices"'],
      // Their closest phrase is their id, a folder name: never quoted.
      ...["a0", "a1", "a2", "a3"].map((id) => [
        `learned.${id}`,
        `reads only faintly close in meaning (similarity ${(ALSO_CONSIDER_MIN_SIMILARITY - 0.01).toFixed(2)})`,
      ]),
    ]);
  });

  it("fills the list under the floor only after those above it, only from the faint floor, and never alone", () => {
    const mixed = new Map<string, Closeness>([
      ["learned.a0", { similarity: 0.39, phrase: "just under" }],
      ["learned.a4", { similarity: ALSO_CONSIDER_FAINT_SIMILARITY - 0.01, phrase: "under the faint floor" }],
      ["learned.a1", { similarity: 0.45, phrase: "above" }],
      ["learned.a2", { similarity: 0, phrase: "orthogonal" }],
      ["learned.a3", { similarity: -0.1, phrase: "opposite" }],
    ]);
    const tier = alsoConsider(query("anything"), [], [], mixed, sources());
    expect(tier.map((item) => [item.ability_id, item.reason])).toEqual([
      ["learned.a1", 'reads close to "above" (similarity 0.45)'],
      ["learned.a0", 'reads only faintly close to "just under" (similarity 0.39)'],
    ]);
    expect(tier.every((item) => item.confidence === "low")).toBe(true);
    // Nothing above the floor and no shared word: empty, however close the next one reads.
    mixed.delete("learned.a1");
    expect(alsoConsider(query("anything"), [], [], mixed, sources())).toEqual([]);
  });

  it("orders by the mean of an ability's two closest phrases: one phrase reading close by chance counts for less than two that agree", () => {
    const close = new Map<string, Closeness>([
      ["learned.a0", { similarity: 0.5, second: 0.3, phrase: "one fluke" }],
      ["learned.a1", { similarity: 0.48, second: 0.47, phrase: "two agree" }],
      ["learned.a2", { similarity: 0.46, phrase: "only phrase" }],
    ]);
    const tier = alsoConsider(query("anything"), [], [], close, sources());
    expect(tier.map((item) => item.ability_id)).toEqual(["learned.a1", "learned.a2", "learned.a0"]);
    // The reason and the score still read the closest phrase alone.
    expect(tier[2]?.reason).toBe('reads close to "one fluke" (similarity 0.50)');
    expect(tier[2]?.score).toBeGreaterThan(tier[0]?.score as number);
  });

  it("ranks an ability reached by the words below the gate by its wording too, and reads its meaning when the shortlist did not", () => {
    const tier = alsoConsider(
      query("anything"),
      [],
      [{ ability_id: "learned.a7", text: 0.3, rank_text: 0.3, score: 0.2 }],
      new Map(),
      sources({ closenessOf: (id) => (id === "learned.a7" ? { similarity: ALSO_CONSIDER_MIN_SIMILARITY + 0.01, phrase: "p" } : undefined) }),
    );
    expect(tier.map((item) => item.ability_id)).toEqual(["learned.a7"]);
    expect(tier[0]?.reason).toBe(`reads close to "p" (similarity ${(ALSO_CONSIDER_MIN_SIMILARITY + 0.01).toFixed(2)})`);
  });
});

describe("the second tier's order and reasons (issue #34, held-out recall)", () => {
  it("ranks by how close an ability reads, not by the lane weights its score adds", () => {
    const lanes = new Map([
      ["learned.closer", entry({ ability_id: "learned.closer", title: "closer", install_lane: "experimental_private" })],
      ["learned.promoted", entry({ ability_id: "learned.promoted", title: "promoted", install_lane: "shared_promoted" })],
    ]);
    const close = new Map<string, Closeness>([
      ["learned.closer", { similarity: 0.5, phrase: "closer" }],
      ["learned.promoted", { similarity: 0.48, phrase: "promoted" }],
    ]);
    const tier = alsoConsider(query("anything"), [], [], close, {
      entryOf: (id) => lanes.get(id),
      refusal: () => undefined,
      sharedWords: () => [],
      closenessOf: () => undefined,
    });
    expect(tier.map((item) => item.ability_id)).toEqual(["learned.closer", "learned.promoted"]);
    // Its score still carries the lane's weight, as a match's does: ranked by score, the promoted one would come first.
    expect(tier[1]?.score).toBeGreaterThan(tier[0]?.score as number);
  });

  it("quotes a phrase a person wrote, never the skill's folder name, even when that name reads closest", () => {
    const pdf = entry({ ability_id: "native.pdf-tools", skill_slug: "pdf-tools", title: "Merge PDF files", trigger_phrases: ["pdf-tools", "use pdf tools"] });
    const vectors = new Map([
      ["pdf-tools", at(0.9, 1)],
      ["use pdf tools", at(0.8, 2)],
      ["merge pdf files", at(0.5, 3)],
    ]);
    const meaning = createMeaningIndex([{ entry: pdf }], (phrase) => vectors.get(phrase));
    const request = at(1, 1);
    const closeness = meaning.nearest(request);
    expect(closeness.get("native.pdf-tools")).toMatchObject({ phrase: "pdf-tools", quote: { phrase: "merge pdf files" } });
    // Its second closest phrase's cosine, for the tier's order.
    expect(closeness.get("native.pdf-tools")?.second).toBeCloseTo(0.8, 5);
    const tier = alsoConsider(query("anything"), [], [], closeness, {
      entryOf: () => pdf,
      refusal: () => undefined,
      sharedWords: () => [],
      closenessOf: () => undefined,
    });
    expect(tier.map((item) => item.reason)).toEqual(['reads close to "merge pdf files" (similarity 0.50)']);
    // A skill with nothing but its name to read says how close, quoting nothing.
    const bare = entry({ ability_id: "native.pdf-tools", skill_slug: "pdf-tools", title: "pdf-tools" });
    const alone = alsoConsider(query("anything"), [], [], createMeaningIndex([{ entry: bare }], (phrase) => vectors.get(phrase)).nearest(request), {
      entryOf: () => bare,
      refusal: () => undefined,
      sharedWords: () => [],
      closenessOf: () => undefined,
    });
    expect(alone.map((item) => item.reason)).toEqual(["reads close in meaning (similarity 0.90)"]);
  });
});

describe("lookupTiers over a snapshot (issue #34)", () => {
  let lexicon: Lexicon;
  beforeAll(async () => {
    lexicon = withDomainPhrasing(await loadWordNetLexicon());
  }, 60_000);

  const documents: LookupDocument[] = [
    { entry: entry({ ability_id: "learned.export-invoices", title: "Export the monthly invoices", trigger_phrases: ["export the monthly invoices"] }) },
    { entry: entry({ ability_id: "learned.repair-heater", title: "Book a repair for the broken heater", trigger_phrases: ["book a heater repair"] }) },
    {
      entry: entry({
        ability_id: "learned.pay-bill",
        title: "Pay the electricity bill",
        trigger_phrases: ["pay the electricity bill"],
        negative_triggers: ["gas bill"],
      }),
    },
    {
      entry: entry({
        ability_id: "learned.quarantined",
        title: "Order office supplies",
        install_lane: "quarantined",
        trigger_phrases: ["order office supplies"],
      }),
    },
    { entry: entry({ ability_id: "learned.turn-on-2fa", title: "Turn on two-factor authentication", trigger_phrases: ["turn on two-factor authentication"] }) },
  ];
  // Each request's and each phrase's vector, chosen: a phrase not listed is far from everything.
  const near: Record<string, Float32Array> = {
    "book a repair for the broken heater": at(0.45, 2),
    "order office supplies": at(0, 3),
    "pay the electricity bill": at(0, 4),
    "turn on two-factor authentication": at(0, 5),
  };
  const vectorOf = (phrase: string) => near[phrase] ?? at(0, 6 + (phrase.length % 10));
  const indexes = () => ({ wording: createWordingIndex(documents, lexicon), meaning: createMeaningIndex(documents, vectorOf) });
  const requestAt = (vector: Float32Array) => async () => vector;

  it("keeps matches exactly as lookup gives them, and adds what reads close below the gate", async () => {
    const { wording, meaning } = indexes();
    const asked = query("export the invoices");
    const tiers = await lookupTiers(wording, meaning, asked, requestAt(at(1)));
    expect(tiers.matches).toEqual(await lookupReading(wording, meaning, asked, requestAt(at(1))));
    // "bill" is WordNet's synonym of "invoice": the electricity bill is a match, so never in the tier.
    expect(tiers.matches.map((match) => match.ability_id)).toEqual(["learned.export-invoices", "learned.pay-bill"]);
    expect(tiers.also_consider.map((item) => item.ability_id)).toEqual(["learned.repair-heater"]);
    expect(tiers.also_consider[0]?.reason).toContain('reads close to "book a repair for the broken heater"');
    expect(AbilityLookupResultSchema.safeParse({ ...tiers, created_at: "2026-01-01T00:00:00Z", schema_version: 1 }).success).toBe(true);
  });

  it("offers an ability sharing one of the request's words below the gate, saying which", async () => {
    const { wording, meaning } = indexes();
    const tiers = await lookupTiers(wording, meaning, query("archive old invoices from the accounting portal and label them"), requestAt(at(0, 31)));
    expect(tiers.matches).toEqual([]);
    expect(tiers.also_consider.map((item) => [item.ability_id, item.reason])).toEqual([["learned.export-invoices", 'shares the word "invoices"']]);
  });

  it("never offers what a hard gate refuses: quarantined, a negative trigger, the opposite action", async () => {
    const { wording, meaning } = indexes();
    // Close in meaning to all three (a cosine of 0.58 each), each refused by its own gate.
    const request = new Float32Array(32);
    request.set([1, 1, 1], 3);
    const tiers = await lookupTiers(wording, meaning, query("turn off two-factor and pay the gas bill and order supplies"), requestAt(request));
    const offered = [...tiers.matches, ...tiers.also_consider].map((item) => item.ability_id);
    expect(offered).not.toContain("learned.quarantined");
    expect(offered).not.toContain("learned.pay-bill");
    expect(offered).not.toContain("learned.turn-on-2fa");
  });

  it("keeps the wording's matches as they are while reading its near misses: at most as many as asked, each below the gate, best first", () => {
    const { wording } = indexes();
    for (const text of [
      "export the invoices",
      "pay the bill and export the invoices of the heater repair",
      "archive old invoices from the accounting portal",
    ]) {
      const asked = query(text);
      const { matches, near } = wording.rankWithNearMisses(asked, 2);
      expect(matches).toEqual(wording.rank(asked));
      expect(near.length).toBeLessThanOrEqual(2);
      expect(near.every((miss) => miss.text < TEXT_MIN && !matches.some((match) => match.ability_id === miss.ability_id))).toBe(true);
      for (let n = 1; n < near.length; n += 1) expect((near[n - 1] as WordingNearMiss).score).toBeGreaterThanOrEqual((near[n] as WordingNearMiss).score);
    }
    expect(wording.rankWithNearMisses(query("archive old invoices from the accounting portal"), 2).near.map((miss) => miss.ability_id)).toContain(
      "learned.export-invoices",
    );
  });

  it("is empty for a request sharing no meaning and no word with any ability", async () => {
    const { wording, meaning } = indexes();
    const tiers = await lookupTiers(wording, meaning, query("what is the weather on mars"), requestAt(at(0, 31)));
    expect(tiers).toEqual({ matches: [], also_consider: [] });
  });

  it("still offers shared words when there is no meaning index", async () => {
    const { wording } = indexes();
    const tiers = await lookupTiers(wording, undefined, query("archive old invoices from the accounting portal and label them"), requestAt(at(1)));
    expect(tiers.also_consider.map((item) => item.ability_id)).toEqual(["learned.export-invoices"]);
  });
});

import { describe, it, expect } from "vitest";
import fc from "fast-check";
import type { z } from "zod";
import { AbilityAvailabilityEntrySchema, type AbilityAvailabilityEntry } from "../../../shared/abilities/availability";
import { AbilityLookupQuerySchema, type AbilityLookupQuery } from "../../../shared/abilities/lookup-contract";
import { lookupAbilities } from "../../../agent/lookup/baseline-scorer";
import { createBaselineIndex } from "./baseline-index";
import { baselineEntry as entry, baselineQuery as query } from "../../../agent/test-support/baseline-entries";

// createBaselineIndex must answer exactly what the full scan (lookupAbilities) answers: same ids,
// same scores bit for bit, same order. Every test here checks that, and the hand-written ones also
// check the answer itself, so each pruning path is shown to find what it has to find.

/** The index's answer, after checking it against the full scan. */
function lookUp(abilities: readonly AbilityAvailabilityEntry[], asked: AbilityLookupQuery) {
  const matches = createBaselineIndex(abilities).lookup(asked);
  expect(matches).toEqual(lookupAbilities(asked, abilities));
  return matches;
}

const ids = (matches: ReadonlyArray<{ ability_id: string }>) => matches.map((match) => match.ability_id);

// Filler that no query below matches by text and that cannot reach the threshold without it
// (private lane, scoped elsewhere): an index that scored nothing but filler would find nothing.
const filler = Array.from({ length: 40 }, (_, n) => entry({ ability_id: `filler-${n}`, title: `Filler ${n}`, trigger_phrases: [`zebra ${n}`, "quartz"] }));

describe("createBaselineIndex finds every ability a text match lifts over the threshold", () => {
  it("finds a trigger phrase that contains the whole query, even a 1- or 2-letter one", () => {
    const abilities = [...filler, entry({ ability_id: "inv", trigger_phrases: ["zebra 1", "Export Invoices"] })];
    expect(ids(lookUp(abilities, query({ user_query: "invoice" })))).toEqual(["inv"]);
    expect(ids(lookUp(abilities, query({ user_query: "es" })))).toEqual(["inv"]);
    expect(ids(lookUp(abilities, query({ user_query: "x" })))).toEqual(["inv"]);
  });

  it("finds a trigger phrase the query contains, short ones and the empty phrase included", () => {
    const abilities = [
      ...filler,
      entry({ ability_id: "long", trigger_phrases: ["monthly invoices"] }),
      entry({ ability_id: "short", trigger_phrases: ["go"] }),
      entry({ ability_id: "one", trigger_phrases: ["é"] }),
      entry({ ability_id: "empty", trigger_phrases: [""] }),
    ];
    expect(ids(lookUp(abilities, query({ user_query: "please export the Monthly Invoices now" })))).toEqual(["empty", "long"]);
    expect(ids(lookUp(abilities, query({ user_query: "let's go" })))).toEqual(["empty", "short"]);
    expect(ids(lookUp(abilities, query({ user_query: "café" })))).toEqual(["empty", "one"]);
  });

  it("scores every trigger phrase as contained in an empty query", () => {
    const abilities = [...filler.slice(0, 5), entry({ ability_id: "none", trigger_phrases: [] })];
    expect(ids(lookUp(abilities, query({ user_query: "" })))).toEqual(["filler-0", "filler-1", "filler-2", "filler-3", "filler-4"]);
  });

  it("finds a partial trigger match of two tokens, a repeated query token counting twice", () => {
    const abilities = [...filler, entry({ ability_id: "pdf", trigger_phrases: ["send the pdf report"] })];
    expect(ids(lookUp(abilities, query({ user_query: "report pdf" })))).toEqual(["pdf"]);
    expect(ids(lookUp(abilities, query({ user_query: "pdf pdf please" })))).toEqual(["pdf"]);
    expect(lookUp(abilities, query({ user_query: "pdf please" }))).toEqual([]);
  });

  it("finds a partial trigger match whose tokens include the most common one", () => {
    // "the" is in every trigger; the index walks the rarer token and looks for "the" in what it reaches.
    const common = Array.from({ length: 30 }, (_, n) => entry({ ability_id: `the-${n}`, trigger_phrases: [`the zebra${n}`] }));
    const abilities = [...common, entry({ ability_id: "budget", trigger_phrases: ["the budget"] })];
    expect(ids(lookUp(abilities, query({ user_query: "budget for the year" })))).toEqual(["budget"]);
    expect(ids(lookUp(abilities, query({ user_query: "the the" })))).toHaveLength(10);
  });

  it("finds a title holding two query tokens as substrings, 1- and 2-letter tokens included", () => {
    const abilities = [...filler, entry({ ability_id: "cust", title: "Customer Refunds" })];
    expect(ids(lookUp(abilities, query({ user_query: "me refund" })))).toEqual(["cust"]);
    expect(ids(lookUp(abilities, query({ user_query: "c r" })))).toEqual(["cust"]);
    expect(ids(lookUp(abilities, query({ user_query: "refunds refunds" })))).toEqual(["cust"]);
    expect(lookUp(abilities, query({ user_query: "refunds zzz" }))).toEqual([]);
  });

  it("counts the empty token of padded queries as a token in every title", () => {
    const abilities = [...filler, entry({ ability_id: "cust", title: "Customer Refunds" })];
    // " refunds" splits into "" and "refunds": two tokens in the title.
    expect(ids(lookUp(abilities, query({ user_query: " refunds" })))).toEqual(["cust"]);
    // "  " splits into "" and "": every title, so every ability, scores 0.2 more.
    expect(lookUp(abilities, query({ user_query: "  " }))).toHaveLength(10);
  });

  it("matches text whose lower case is longer than itself", () => {
    // "İ" lower-cases to two code units, "i" and a combining dot.
    const abilities = [...filler, entry({ ability_id: "ist", title: "İstanbul Trip", trigger_phrases: ["book İstanbul"] })];
    expect(ids(lookUp(abilities, query({ user_query: "İSTANBUL" })))).toEqual(["ist"]);
    expect(ids(lookUp(abilities, query({ user_query: "i\u0307stanbul trip" })))).toEqual(["ist"]);
  });

  it("drops a text match with a negative trigger", () => {
    const abilities = [...filler, entry({ ability_id: "inv", trigger_phrases: ["export invoices"], negative_triggers: ["Delete"] })];
    expect(ids(lookUp(abilities, query({ user_query: "export invoices" })))).toEqual(["inv"]);
    expect(lookUp(abilities, query({ user_query: "delete and export invoices" }))).toEqual([]);
  });
});

describe("createBaselineIndex finds abilities that reach the threshold without a text match", () => {
  const noText = [
    ...filler,
    // Both 0.15000000000000002: equal, so ordered by id.
    entry({ ability_id: "shared-global", install_lane: "shared_promoted", project_scopes: [] }), // 0.05 + 0.1
    entry({ ability_id: "shared-strong", install_lane: "shared_promoted", checkpoint_health: "strong" }), // 0.1 + 0.05
    entry({ ability_id: "approved-global", install_lane: "approved_workspace", project_scopes: ["*"] }), // 0.12
    entry({ ability_id: "in-p1", project_scopes: ["p1"] }), // 0.18 in p1, 0.03 elsewhere
    entry({ ability_id: "in-p1-global", install_lane: "approved_workspace", project_scopes: ["p1", "*"] }), // 0.22 in p1, 0.12 elsewhere
  ];

  it("finds lane, health and global scope alone reaching 0.15", () => {
    expect(ids(lookUp(noText, query()))).toEqual(["shared-global", "shared-strong"]);
  });

  it("finds the queried project's abilities, and only for that project", () => {
    expect(ids(lookUp(noText, query({ project_id: "p1" })))).toEqual(["in-p1-global", "in-p1", "shared-global", "shared-strong"]);
    expect(ids(lookUp(noText, query({ project_id: "p2" })))).toEqual(["shared-global", "shared-strong"]);
    // An empty project id is no project, as in the scorer's `projectId && …`.
    expect(ids(lookUp(noText, query({ project_id: "" })))).toEqual(["shared-global", "shared-strong"]);
  });

  it("treats the project id '*' as a match for globally scoped abilities", () => {
    expect(ids(lookUp(noText, query({ project_id: "*" })))).toEqual(["approved-global", "in-p1-global", "shared-global", "shared-strong"]);
  });

  it("skips one with a negative trigger in the query and takes the next in line", () => {
    const abilities = [...noText, entry({ ability_id: "shared-z", install_lane: "shared_promoted", project_scopes: [], negative_triggers: ["refund"] })];
    expect(ids(lookUp(abilities, query({ user_query: "no text" })))).toEqual(["shared-global", "shared-strong", "shared-z"]);
    expect(ids(lookUp(abilities, query({ user_query: "a refund" })))).toEqual(["shared-global", "shared-strong"]);
  });

  it("scores an ability found both ways with its text", () => {
    const abilities = [...noText, entry({ ability_id: "shared-text", install_lane: "shared_promoted", project_scopes: [], title: "Monthly Invoices" })];
    expect(lookUp(abilities, query({ user_query: "monthly invoices" }))[0]).toMatchObject({ ability_id: "shared-text", score: expect.closeTo(0.35, 10) });
  });
});

describe("createBaselineIndex ranks and filters as the full scan does", () => {
  it("keeps the ten best of hundreds of equal scores, ties by ability_id, duplicate ids in snapshot order", () => {
    const abilities = Array.from({ length: 300 }, (_, n) =>
      entry({ ability_id: `id-${String(299 - n).padStart(3, "0")}`, trigger_phrases: ["export invoices"], reason_unusable: `copy ${n}` }),
    );
    abilities.push(entry({ ability_id: "id-000", trigger_phrases: ["export invoices"], reason_unusable: "second id-000" }));
    const matches = lookUp(abilities, query({ user_query: "export invoices" }));
    expect(ids(matches)).toEqual(["id-000", "id-000", "id-001", "id-002", "id-003", "id-004", "id-005", "id-006", "id-007", "id-008"]);
    expect(matches.slice(0, 2).map((match) => match.reason_unusable)).toEqual(["copy 299", "second id-000"]);
  });

  it("searches only the allowed lanes and never a quarantined ability", () => {
    const abilities = [
      ...filler,
      entry({ ability_id: "private", trigger_phrases: ["export invoices"] }),
      entry({ ability_id: "approved", install_lane: "approved_workspace", trigger_phrases: ["export invoices"] }),
      entry({ ability_id: "shared", install_lane: "shared_promoted", project_scopes: [] }),
      entry({ ability_id: "q-lane", install_lane: "quarantined", trigger_phrases: ["export invoices"] }),
      entry({ ability_id: "q-health", install_lane: "shared_promoted", checkpoint_health: "quarantined", trigger_phrases: ["export invoices"] }),
    ];
    const ask = (over: Partial<z.input<typeof AbilityLookupQuerySchema>>) => ids(lookUp(abilities, query({ user_query: "export invoices", ...over })));
    expect(ask({})).toEqual(["approved", "private", "shared"]);
    expect(ask({ include_private_owned_by_user: false })).toEqual(["approved", "shared"]);
    expect(ask({ include_private_owned_by_user: false, install_lanes_allowed: ["experimental_private"] })).toEqual(["private"]);
    expect(ask({ include_private_owned_by_user: false, install_lanes_allowed: [] })).toEqual([]);
  });

  it("gives the same answers when one index serves many queries", () => {
    const abilities = [
      ...filler,
      entry({ ability_id: "inv", trigger_phrases: ["export invoices"], title: "Invoices export" }),
      entry({ ability_id: "cust", install_lane: "shared_promoted", title: "Customer Refunds", project_scopes: ["p1"] }),
    ];
    const index = createBaselineIndex(abilities);
    const queries = ["export invoices", "me refund", "", "  ", "export", "refund for p1", "invoices invoices"].flatMap((user_query) => [
      query({ user_query }),
      query({ user_query, project_id: "p1" }),
    ]);
    for (let round = 0; round < 3; round += 1) {
      for (const asked of queries) expect(index.lookup(asked)).toEqual(lookupAbilities(asked, abilities));
    }
  });
});

// Random snapshots and queries over a small vocabulary, so that tokens collide, contain one another
// (port / export / report), differ only in case, change length when lower-cased (İ), lower-case
// by context (a final Σ), or hold surrogate pairs.
const WORDS = [
  "export",
  "Export",
  "report",
  "port",
  "rep",
  "invoice",
  "invoices",
  "the",
  "a",
  "me",
  "is",
  "x",
  "of",
  "customer",
  "İstanbul",
  "straße",
  "ß",
  "ΟΔΟΣ",
  "📄",
  "pdf",
];
const SEPARATORS = [" ", " ", " ", "  ", "\t", "\u00a0", "\n"];

const word = fc.constantFrom(...WORDS);
const separator = fc.constantFrom(...SEPARATORS);
const padding = fc.constantFrom("", "", "", " ", "  ", "\t");
const phrase = fc
  .tuple(padding, fc.array(fc.tuple(word, separator), { maxLength: 5 }), padding)
  .map(([before, words, after]) => before + words.map(([text, gap], n) => (n === words.length - 1 ? text : text + gap)).join("") + after);
const projectIds = ["p1", "p2", "*", ""];

const ability = fc.record({
  ability_id: fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "aa", "ab", "B"),
  title: phrase,
  install_lane: fc.constantFrom("experimental_private", "approved_workspace", "shared_promoted", "quarantined"),
  usable_now: fc.boolean(),
  reason_unusable: fc.option(fc.constantFrom("offline", "site not allowed"), { nil: undefined }),
  trigger_phrases: fc.array(phrase, { maxLength: 4 }),
  negative_triggers: fc.array(fc.oneof({ weight: 4, arbitrary: word }, { weight: 1, arbitrary: phrase }), { maxLength: 2 }),
  project_scopes: fc.subarray(projectIds),
  checkpoint_health: fc.constantFrom(undefined, "strong", "moderate", "weak", "no_data", "quarantined"),
});

const lookupQuery = fc.record({
  user_query: fc.oneof(phrase, fc.constantFrom("", " ", "  ", "export export", "a a", " the ", "x")),
  project_id: fc.constantFrom(undefined, ...projectIds, "p3"),
  install_lanes_allowed: fc.option(fc.subarray(["experimental_private", "approved_workspace", "shared_promoted"] as const), { nil: undefined }),
  include_private_owned_by_user: fc.option(fc.boolean(), { nil: undefined }),
});

const snapshotOf = (raw: ReadonlyArray<typeof ability extends fc.Arbitrary<infer T> ? T : never>) =>
  raw.map((fields) => AbilityAvailabilityEntrySchema.parse({ ...fields, family: "browser", source: "learned", enabled: true, schema_version: 1 }));

const queryOf = (fields: typeof lookupQuery extends fc.Arbitrary<infer T> ? T : never) => AbilityLookupQuerySchema.parse({ ...fields, schema_version: 1 });

describe("createBaselineIndex on random snapshots", () => {
  it("answers exactly what lookupAbilities answers (small snapshots, several queries per index)", () => {
    fc.assert(
      fc.property(fc.array(ability, { maxLength: 40 }), fc.array(lookupQuery, { minLength: 1, maxLength: 4 }), (raw, rawQueries) => {
        const abilities = snapshotOf(raw);
        const index = createBaselineIndex(abilities);
        for (const asked of rawQueries.map(queryOf)) expect(index.lookup(asked)).toEqual(lookupAbilities(asked, abilities));
      }),
      { numRuns: 2500 },
    );
  });

  it("answers exactly what lookupAbilities answers (snapshots of hundreds, where the top ten is a cut)", () => {
    fc.assert(
      fc.property(fc.array(ability, { minLength: 100, maxLength: 400 }), fc.array(lookupQuery, { minLength: 1, maxLength: 8 }), (raw, rawQueries) => {
        const abilities = snapshotOf(raw);
        const index = createBaselineIndex(abilities);
        for (const asked of rawQueries.map(queryOf)) expect(index.lookup(asked)).toEqual(lookupAbilities(asked, abilities));
      }),
      { numRuns: 150 },
    );
  });
});

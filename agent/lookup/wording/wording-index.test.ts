import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import type { z } from "zod";
import { loadWordNetLexicon } from "../lexicon/wordnet-lexicon";
import { AbilityAvailabilityEntrySchema, type AbilityAvailabilityEntry } from "../../../shared/abilities/availability";
import { AbilityLookupQuerySchema, FULL_TEXT, TEXT_MIN, type AbilityLookupQuery } from "../../../shared/abilities/lookup-contract";
import type { Lexicon } from "../lexicon/wording-lexicon";
import { createWordingIndex } from "./wording-index";
import { explainWording } from "./wording-matcher";
import type { LookupDocument } from "./wording-score";
import { normalizeText, termsOf } from "./wording-terms";
import { wordsAround } from "./wording-expansion";

// The real lexical resource: what the matcher is, not a stand-in for it.
let lexicon: Lexicon;
beforeAll(async () => {
  lexicon = await loadWordNetLexicon();
}, 60_000);

function entry(over: Partial<z.input<typeof AbilityAvailabilityEntrySchema>> = {}): AbilityAvailabilityEntry {
  return AbilityAvailabilityEntrySchema.parse({
    ability_id: "learned.export-invoices",
    title: "Export the monthly invoices",
    family: "browser",
    source: "learned",
    install_lane: "experimental_private",
    enabled: true,
    usable_now: true,
    trigger_phrases: ["export the monthly invoices"],
    schema_version: 1,
    ...over,
  });
}

const query = (text: string, over: Partial<z.input<typeof AbilityLookupQuerySchema>> = {}): AbilityLookupQuery =>
  AbilityLookupQuerySchema.parse({
    user_query: text,
    install_lanes_allowed: ["experimental_private", "approved_workspace", "shared_promoted"],
    schema_version: 1,
    ...over,
  });

const documents: LookupDocument[] = [
  { entry: entry(), description: "Export the monthly invoices as CSV." },
  {
    entry: entry({
      ability_id: "learned.book-room",
      title: "Book a meeting room for the team",
      trigger_phrases: ["book a meeting room for the team", "reserve a room"],
    }),
  },
  {
    entry: entry({
      ability_id: "learned.reset-password",
      title: "Reset my account password",
      trigger_phrases: ["reset my account password", "forgot password"],
    }),
    when_to_use: ["When the user cannot sign in"],
  },
  { entry: entry({ ability_id: "learned.new-repo", title: "Create a new repository", trigger_phrases: ["create a new repository"] }) },
  {
    entry: entry({
      ability_id: "learned.pay-bill",
      title: "Pay the electricity bill",
      install_lane: "shared_promoted",
      trigger_phrases: ["pay the electricity bill"],
      negative_triggers: ["water bill"],
    }),
  },
];

describe("normalization (issue #15)", () => {
  it("drops case, accents, punctuation and contractions, and the way people ask for things", () => {
    expect(normalizeText("Can't you EXPORT the café's invoices?!")).toBe("can not you export the cafe invoices");
    expect(termsOf("Could you please help me export the invoices", lexicon).map((term) => term.word)).toEqual(["export", "invoices"]);
  });

  it("gives each word its base forms, irregular ones included", () => {
    const lemmas = (text: string) => termsOf(text, lexicon).map((term) => term.lemmas[0]);
    expect(lemmas("bought children invoices paid")).toEqual(["buy", "child", "invoice", "paid"]);
    expect(termsOf("booking", lexicon)[0]?.lemmas).toEqual(expect.arrayContaining(["booking", "book"]));
    // A detachment rule only yields a base form of its own part of speech: "news" is not "new".
    expect(termsOf("news", lexicon)[0]?.lemmas).toEqual(["news"]);
  });

  it("joins a verb and its particle, next to each other or around a pronoun", () => {
    expect(termsOf("sign up for the newsletter", lexicon)[0]?.lemmas[0]).toBe("sign_up");
    expect(termsOf("please sign me up for the newsletter", lexicon)[0]?.lemmas[0]).toBe("sign_up");
    expect(termsOf("check us in", lexicon).map((term) => term.word)).toEqual(["check in"]);
    // Not a particle WordNet joins to the verb: the words stay apart.
    expect(termsOf("send me pictures", lexicon).map((term) => term.word)).toEqual(["send", "pictures"]);
  });

  it("knows a phrase WordNet lists whatever its inflection: the verb's, or the head noun's", () => {
    const first = (text: string) => termsOf(text, lexicon)[0];
    expect(first("signing up for the newsletter")).toMatchObject({ word: "signing up", lemmas: expect.arrayContaining(["sign_up", "sign"]) });
    expect(first("signing them up")?.lemmas[0]).toBe("sign_up");
    expect(first("we checked in")?.lemmas[0]).toBe("check_in");
    expect(first("a few days off")?.lemmas[0]).toBe("day_off");
    expect(first("join their mailing lists")?.word).toBe("join");
    expect(termsOf("join their mailing lists", lexicon)[1]?.lemmas[0]).toBe("mailing_list");
    // Function words alone are not a phrase.
    expect(termsOf("out of it", lexicon)).toEqual([]);
  });

  it("reads a word WordNet does not list through the words it is made of", () => {
    expect([...lexicon.parts("rebook")]).toEqual([["book", expect.any(Number)]]);
    expect(lexicon.parts("unsubscribe").has("subscribe")).toBe(true);
    const username = lexicon.parts("username");
    expect(username.get("name")).toBeGreaterThan(username.get("user") ?? 1);
    // A word WordNet lists is not taken apart ("workspace"), nor is a word of no known parts.
    expect(lexicon.parts("workspace").size).toBe(0);
    expect(lexicon.parts("xqzzv").size).toBe(0);
    // In an ability, such a word brings its parts and their broader words, a hop further.
    const around = wordsAround("unsubscribe", lexicon, new Map());
    expect(around.get("subscribe")).toBe(0.75);
    expect(lexicon.broader("subscribe").size).toBeGreaterThan(0);
    for (const [word, closeness] of lexicon.broader("subscribe")) expect(around.get(word)).toBeGreaterThanOrEqual(0.75 * closeness - 1e-12);
    // Its plural is read by English plural rules: "usernames" is "username", not "usernam".
    expect(termsOf("usernames", lexicon)[0]?.lemmas).toEqual(["username"]);
  });

  it('leaves out a base form people rarely mean: "wages" is a wage, not what a tail does', () => {
    expect(termsOf("wages", lexicon)[0]?.lemmas).toEqual(["wages", "wage"]);
    expect(termsOf("booking", lexicon)[0]?.lemmas).toEqual(expect.arrayContaining(["booking", "book"]));
  });
});

describe("the wording matcher (issue #15)", () => {
  it("finds an ability asked for in other words, and says through which", () => {
    const index = createWordingIndex(documents, lexicon);
    expect(index.lookup(query("download the monthly bills"))[0]?.ability_id).toBe("learned.export-invoices");
    expect(index.lookup(query("reserve a conference room"))[0]?.ability_id).toBe("learned.book-room");
    expect(index.lookup(query("I forgot my password"))[0]?.ability_id).toBe("learned.reset-password");
    // A word WordNet does not know, found as the beginning of an ability's word.
    expect(index.lookup(query("make a new repo"))[0]?.ability_id).toBe("learned.new-repo");
    expect(index.explain(query("make a new repo"), "learned.new-repo")?.reasons.join(" ")).toContain('"repo" found via related word "repository"');
    // An ability's word WordNet does not know, found as the beginning of a request word.
    const admin = createWordingIndex(
      [
        ...documents,
        { entry: entry({ ability_id: "learned.admin-group", title: "Add a user to the admin group", trigger_phrases: ["add a user to the admin group"] }) },
      ],
      lexicon,
    );
    expect(admin.lookup(query("add a user to the administrators group"))[0]?.ability_id).toBe("learned.admin-group");
    expect(admin.explain(query("add a user to the administrators group"), "learned.admin-group")?.reasons.join(" ")).toContain(
      '"administrators" found via related word "admin"',
    );
    // A word WordNet does not list, through a word it is made of.
    const rebook = admin.explain(query("rebook the meeting room"), "learned.book-room");
    expect(rebook?.reasons.join(" ")).toContain('"rebook" found via related word "book"');
    const why = index.explain(query("download the monthly bills"), "learned.export-invoices");
    expect(why?.reasons.join(" ")).toContain('"bills" found via related word "invoice"');
  });

  it("returns nothing for requests about something else", () => {
    const index = createWordingIndex(documents, lexicon);
    for (const text of ["tell me a joke", "what's the weather like tomorrow", "play some jazz music", "", "please help me"]) {
      expect(index.lookup(query(text))).toEqual([]);
    }
    const why = index.explain(query("tell me a joke"), "learned.export-invoices");
    expect(why?.matched).toBe(false);
    expect(why?.text).toBeLessThan(TEXT_MIN);
  });

  it("does not take an ability that does something else to the same things: the request's action counts twice when it is nowhere in the ability", () => {
    const index = createWordingIndex(documents, lexicon);
    expect(index.lookup(query("delete all invoices"))).toEqual([]);
    const why = index.explain(query("delete all invoices"), "learned.export-invoices");
    expect(why?.matched).toBe(false);
    expect(why?.reasons.join(" ")).toContain('"delete", the action asked for, is nowhere in the ability\'s wording');
    expect(index.lookup(query("export all invoices"))[0]?.ability_id).toBe("learned.export-invoices");
    // A light verb is not read as the action: the rest of the request says what is wanted.
    expect(index.lookup(query("get me the monthly invoices"))[0]?.ability_id).toBe("learned.export-invoices");
    // Nor is a first word mostly used as a noun.
    expect(index.lookup(query("invoices for the month, exported"))[0]?.ability_id).toBe("learned.export-invoices");
  });

  it("weighs little a word neither WordNet nor any ability knows: a name, a code, a value", () => {
    const index = createWordingIndex(documents, lexicon);
    expect(index.lookup(query("export the monthly invoices for xqzzvik"))[0]?.ability_id).toBe("learned.export-invoices");
    const why = index.explain(query("reserve a room for jorvanek and ostrelda"), "learned.book-room");
    expect(why?.matched).toBe(true);
    // Alone, such words are no request at all.
    expect(index.lookup(query("xqzzvik ostrelda"))).toEqual([]);
  });

  it("ranks an ability that does another action to the same things lower, and says so", () => {
    const flights = [
      { entry: entry({ ability_id: "learned.search", title: "Search for flights to Paris", trigger_phrases: ["search for flights to paris"] }) },
      { entry: entry({ ability_id: "learned.book", title: "Book a flight", trigger_phrases: ["book a flight"] }) },
    ];
    const index = createWordingIndex(flights, lexicon);
    const search = index.explain(query("reserve a flight to paris"), "learned.search");
    expect(search?.matched).toBe(true);
    expect(search?.reasons.join(" ")).toContain('the request asks to "reserve", and the ability\'s title begins with another action, "search": it ranks lower');
    expect(search?.rank_text).toBeLessThan((search?.text ?? 0) * 0.8);
    expect(index.lookup(query("reserve a flight to paris")).map((match) => match.ability_id)).toEqual(["learned.book", "learned.search"]);
    // A related action does not clash ("reserve" and "book"), nor does a light one ("get").
    expect(index.explain(query("reserve a flight to paris"), "learned.book")?.reasons.join(" ")).not.toContain("another action");
    expect(index.explain(query("get flights to paris"), "learned.search")?.reasons.join(" ")).not.toContain("another action");
  });

  it("counts each word of an ability for one word of the request", () => {
    const leave = [{ entry: entry({ ability_id: "learned.time-off", title: "Request time off", trigger_phrases: ["request time off"] }) }];
    const index = createWordingIndex(leave, lexicon);
    // "timer" and "minutes" both lead to "time": found once, the request is not covered.
    expect(index.lookup(query("set a timer for ten minutes"))).toEqual([]);
    const why = index.explain(query("set a timer for ten minutes"), "learned.time-off");
    expect(why?.reasons.join(" ")).toContain('but "time" counts for "timer"');
    expect(index.lookup(query("request some time off"))[0]?.ability_id).toBe("learned.time-off");
  });

  it("ranks by the words that tell abilities apart: a word most abilities hold counts less", () => {
    const shop = (id: string, title: string) => ({ entry: entry({ ability_id: `learned.${id}`, title, trigger_phrases: [title.toLowerCase()] }) });
    const many = [
      shop("orders", "Track my orders"),
      shop("order-pizza", "Order a pizza"),
      shop("order-book", "Order a book"),
      shop("order-food", "Order groceries"),
      shop("order-gift", "Order a gift"),
    ];
    const index = createWordingIndex(many, lexicon);
    const explained = (id: string) => index.explain(query("order a pizza"), id);
    expect(explained("learned.order-pizza")?.rank_text).toBeLessThanOrEqual(explained("learned.order-pizza")?.text ?? 0);
    // "order" is held by all five: its share of the score falls, "pizza" (one) keeps its own.
    expect(index.rarity("order")).toBeLessThan(index.rarity("pizza"));
    expect(index.lookup(query("order a pizza"))[0]?.ability_id).toBe("learned.order-pizza");
  });

  it("keeps out quarantined and disabled abilities, lanes not searched, and requests with a negative trigger", () => {
    const kept = [
      { entry: entry({ ability_id: "learned.quarantined", install_lane: "quarantined" }) },
      { entry: entry({ ability_id: "learned.health-quarantined", checkpoint_health: "quarantined" }) },
      { entry: entry({ ability_id: "learned.disabled", enabled: false, usable_now: false, reason_unusable: "deactivated by the user" }) },
      { entry: entry({ ability_id: "learned.workspace", install_lane: "approved_workspace" }) },
      ...documents,
    ];
    const index = createWordingIndex(kept, lexicon);
    expect(index.lookup(query("export the monthly invoices")).map((match) => match.ability_id)).toEqual(["learned.workspace", "learned.export-invoices"]);
    expect(index.lookup(query("export the monthly invoices", { install_lanes_allowed: ["shared_promoted"], include_private_owned_by_user: false }))).toEqual(
      [],
    );
    expect(index.explain(query("export the monthly invoices"), "learned.disabled")?.rejections).toEqual(["disabled by the user"]);
    expect(index.lookup(query("pay the electricity bill"))[0]?.ability_id).toBe("learned.pay-bill");
    // As written, or by base form.
    expect(index.lookup(query("pay the electricity and water bill")).map((match) => match.ability_id)).not.toContain("learned.pay-bill");
    expect(index.lookup(query("pay the electricity bill, the bills for water")).map((match) => match.ability_id)).not.toContain("learned.pay-bill");
  });

  it("weighs scope, lane and checkpoint health as §0C.11C does, and halves an ability not usable now", () => {
    const scoped = [
      { entry: entry({ ability_id: "learned.a", project_scopes: ["p1"] }) },
      { entry: entry({ ability_id: "learned.b", install_lane: "shared_promoted" }) },
      { entry: entry({ ability_id: "learned.c", usable_now: false, reason_unusable: "skill files are missing from the workspace" }) },
    ];
    const index = createWordingIndex(scoped, lexicon);
    const matches = index.rank(query("export the monthly invoices", { project_id: "p1" }));
    const score = (id: string) => matches.find((match) => match.ability_id === id)?.score ?? Number.NaN;
    // The text part: 0.6 (§0C.11C's trigger + title) once the wording covers the request fully (FULL_TEXT).
    const text = 0.6 * Math.min(1, (matches[0]?.rank_text ?? Number.NaN) / FULL_TEXT);
    expect(score("learned.a")).toBeCloseTo(text + 0.15 + 0.03, 10);
    expect(score("learned.b")).toBeCloseTo(text + 0.05 + 0.1, 10);
    expect(score("learned.c")).toBeCloseTo((text + 0.05 + 0.03) * 0.5, 10);
    expect(matches.map((match) => match.ability_id)).toEqual(["learned.a", "learned.b", "learned.c"]);
    expect(matches.find((match) => match.ability_id === "learned.c")).toMatchObject({
      usable_now: false,
      reason_unusable: "skill files are missing from the workspace",
    });
  });

  it("answers a lookup with the numbers explain-match gives each ability, on random requests", () => {
    const index = createWordingIndex(documents, lexicon);
    const words = [
      "export",
      "bills",
      "monthly",
      "reserve",
      "room",
      "team",
      "forgot",
      "password",
      "pay",
      "power",
      "the",
      "my",
      "please",
      "joke",
      "invoice",
      "meeting",
      "account",
      "sign",
      "in",
      "repo",
      "new",
      "make",
      "signing",
      "up",
      "days",
      "off",
      "rebook",
      "administrators",
      "admin",
      "usernames",
      "delete",
      "get",
      "xqzzvik",
      "save10",
      "where",
      "is",
      "not",
      "working",
      "book",
      "search",
      "lost",
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words), { minLength: 0, maxLength: 7 }), (picked) => {
        const request = query(picked.join(" "));
        const expected = documents
          .map((document) => ({ id: document.entry.ability_id, verdict: explainWording(request, document, lexicon, index.rarity, index.wordsStartingWith) }))
          .filter(({ verdict }) => verdict.matched)
          .sort((a, b) => b.verdict.score - a.verdict.score || b.verdict.text - a.verdict.text || (a.id < b.id ? -1 : 1));
        const actual = index.rank(request);
        expect(actual.map((match) => [match.ability_id, match.score, match.text, match.rank_text])).toEqual(
          expected.map(({ id, verdict }) => [id, verdict.score, verdict.text, verdict.rank_text]),
        );
      }),
      { numRuns: 200 },
    );
  });
});

describe("the wording matcher's gates, for lookup by meaning (issue #15, eighth round)", () => {
  it("refuses what rank never returns, and for an ability found by meaning alone the clash of actions too", () => {
    const index = createWordingIndex(documents, lexicon);
    const refused = index.refusal(query("delete all the invoices"));
    // Sentence vectors read "delete all the invoices" much like "export the invoices": only the verbs differ.
    expect(refused("learned.export-invoices")).toBeUndefined();
    expect(refused("learned.export-invoices", true)).toBe('verb_clash: the request asks for another action than "export"');
    expect(index.refusal(query("pay my water bill"))("learned.pay-bill")).toBe('negative_trigger_match: "water bill"');
    expect(index.refusal(query("export the monthly invoices"))("learned.export-invoices", true)).toBeUndefined();
  });
});

describe("a request with typos (issue #15, ninth round)", () => {
  it("is read with each unknown word one slip from a known word mended: lookup finds what the words as typed miss", () => {
    const index = createWordingIndex(documents, lexicon);
    const typed = query("resreve a rooom for the taem");
    expect(index.rank(typed)).toEqual([]);
    const read = index.readSpelling(typed);
    expect(read.query.user_query).toBe("reserve a room for the taem"); // four letters: left as typed
    expect(read.corrections).toEqual([
      { typed: "resreve", read: "reserve" },
      { typed: "rooom", read: "room" },
    ]);
    expect(index.lookup(typed)[0]?.ability_id).toBe("learned.book-room");
    // A request spelled right is read as typed.
    const clean = query("reset my account password");
    expect(index.readSpelling(clean)).toEqual({ query: clean, corrections: [] });
  });
});

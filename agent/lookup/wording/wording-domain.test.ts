import { beforeAll, describe, expect, it } from "vitest";
import { loadWordNetLexicon } from "../lexicon/wordnet-lexicon";
import { AbilityAvailabilityEntrySchema } from "../../../shared/abilities/availability";
import { AbilityLookupQuerySchema } from "../../../shared/abilities/lookup-contract";
import { domainTerms, isDomainTerm, oppositesOf, withDomainPhrasing } from "./wording-domain";
import { createWordingIndex } from "./wording-index";
import type { Lexicon } from "../lexicon/wording-lexicon";
import { titleSize } from "./wording-matcher";
import type { LookupDocument } from "./wording-score";
import { contentSize, termsOf } from "./wording-terms";

// The real lexical resource: the domain's phrasing is what it adds to WordNet.
let wordnet: Lexicon;
let lexicon: Lexicon;
beforeAll(async () => {
  wordnet = await loadWordNetLexicon();
  lexicon = withDomainPhrasing(wordnet);
}, 60_000);

const ability = (id: string, title: string): LookupDocument => ({
  entry: AbilityAvailabilityEntrySchema.parse({
    ability_id: `learned.${id}`,
    title,
    family: "browser",
    source: "learned",
    install_lane: "experimental_private",
    enabled: true,
    usable_now: true,
    trigger_phrases: [title.toLowerCase()],
    schema_version: 1,
  }),
});
/** The lexicon's answers, without its antonyms: what the matcher read before WordNet's antonyms. */
const noAntonyms = (from: Lexicon): Lexicon => ({
  lemmas: (word) => from.lemmas(word),
  related: (lemma) => from.related(lemma),
  broader: (lemma) => from.broader(lemma),
  definitions: (lemma) => from.definitions(lemma),
  weight: (lemma) => from.weight(lemma),
  has: (lemma) => from.has(lemma),
  parts: (word) => from.parts(word),
  mostlyVerb: (lemma) => from.mostlyVerb(lemma),
  antonyms: () => [],
});
const query = (text: string) => AbilityLookupQuerySchema.parse({ user_query: text, install_lanes_allowed: ["experimental_private"], schema_version: 1 });

const abilities = [
  ability("checkout", "Check out the cart and place the order"),
  ability("export", "Export the monthly invoices as CSV"),
  ability("two-factor", "Turn on two-factor authentication"),
  ability("coupon", "Apply a discount code"),
  ability("reset", "Reset my account password"),
  ability("weather", "Show the weather forecast"),
];

describe("the phrasing of our own domain (issue #15)", () => {
  it("links the words apps use for one feature, which WordNet does not", () => {
    for (const [a, b] of [
      ["basket", "cart"],
      ["log_in", "sign_in"],
      ["update", "edit"],
      ["spreadsheet", "csv"],
      ["2fa", "two_factor"],
      ["download", "export"],
    ] as const) {
      expect(wordnet.related(a).get(b) ?? 0).toBeLessThan(0.7);
      expect(lexicon.related(a).get(b)).toBeGreaterThanOrEqual(0.7);
    }
    // WordNet's own relations are kept.
    expect(lexicon.related("basket").get("handbasket")).toBe(wordnet.related("basket").get("handbasket"));
  });

  it("reads a domain word as a word and a domain phrase as one, as WordNet's own", () => {
    expect(wordnet.has("2fa")).toBe(false);
    expect(lexicon.has("2fa")).toBe(true);
    expect(termsOf("enter the promo codes", lexicon).map((term) => term.lemmas[0])).toEqual(["enter", "promo_code"]);
    expect(termsOf("my todos", lexicon)[0]?.lemmas).toContain("todo");
    expect(termsOf("prs", lexicon)[0]?.lemmas).toEqual(["pr"]);
    // "login" is not "log" and "in" run together.
    expect(lexicon.parts("login").size).toBe(0);
    expect(isDomainTerm("shopping_cart")).toBe(true);
    expect(isDomainTerm("weather")).toBe(false);
  });

  it("reads a lexicon whose methods live on a prototype", () => {
    class OnPrototype implements Lexicon {
      lemmas(word: string) {
        return wordnet.lemmas(word);
      }
      related(lemma: string) {
        return wordnet.related(lemma);
      }
      broader(lemma: string) {
        return wordnet.broader(lemma);
      }
      definitions(lemma: string) {
        return wordnet.definitions(lemma);
      }
      weight(lemma: string) {
        return wordnet.weight(lemma);
      }
      has(lemma: string) {
        return wordnet.has(lemma);
      }
      parts(word: string) {
        return wordnet.parts(word);
      }
      mostlyVerb(lemma: string) {
        return wordnet.mostlyVerb(lemma);
      }
      antonyms(lemma: string) {
        return wordnet.antonyms(lemma);
      }
    }
    const wrapped = withDomainPhrasing(new OnPrototype());
    expect(wrapped.weight("get")).toBe(wordnet.weight("get"));
    expect(wrapped.definitions("checkout")).toEqual(wordnet.definitions("checkout"));
    expect(wrapped.mostlyVerb("delete")).toBe(true);
    expect(wrapped.broader("update").size).toBeGreaterThan(0);
    expect(wrapped.antonyms("sell")).toEqual(wordnet.antonyms("sell"));
  });

  it("is one wrapper per lexicon", () => {
    expect(withDomainPhrasing(wordnet)).toBe(lexicon);
    expect(withDomainPhrasing(lexicon)).toBe(lexicon);
  });

  it("finds abilities asked for in app words WordNet does not link, and still nothing for other requests", () => {
    const ours = createWordingIndex(abilities, lexicon);
    const plain = createWordingIndex(abilities, wordnet);
    const requests: Array<[string, string]> = [
      ["buy everything in my basket", "learned.checkout"],
      ["download a spreadsheet of the bills", "learned.export"],
      ["enable 2fa", "learned.two-factor"],
      ["use a voucher", "learned.coupon"],
    ];
    for (const [text, id] of requests) {
      expect(ours.lookup(query(text))[0]?.ability_id).toBe(id);
      expect(plain.lookup(query(text))[0]?.ability_id).not.toBe(id);
    }
    expect(ours.explain(query("buy everything in my basket"), "learned.checkout")?.reasons.join(" ")).toContain('"basket" found via related word "cart"');
    for (const text of ["tell me a joke", "how tall is mount everest", "play some jazz music"]) expect(ours.lookup(query(text))).toEqual([]);
  });
});

describe("a request for the opposite action (issue #15)", () => {
  const titled = [
    ability("two-factor-on", "Turn on two-factor authentication"),
    ability("newsletter-subscribe", "Subscribe to the weekly newsletter"),
    ability("admin-add", "Add a user to the admin group"),
    ability("hotel-cancel", "Cancel a hotel reservation"),
    ability("card-freeze", "Freeze my debit card"),
  ];

  it("never finds an ability whose title begins with the action the request undoes, and says so", () => {
    const index = createWordingIndex(titled, lexicon);
    expect(index.lookup(query("turn off two-factor authentication"))).toEqual([]);
    expect(index.lookup(query("unsubscribe from the weekly newsletter")).map((match) => match.ability_id)).not.toContain("learned.newsletter-subscribe");
    expect(index.lookup(query("remove a user from the admin group")).map((match) => match.ability_id)).not.toContain("learned.admin-add");
    expect(index.lookup(query("unfreeze my debit card")).map((match) => match.ability_id)).not.toContain("learned.card-freeze");
    expect(index.explain(query("disable 2fa"), "learned.two-factor-on")?.rejections).toContain(
      'opposite_action: the request asks to "disable", the opposite of "turn on" at the start of its title',
    );
    // The same requests in the ability's own direction are found.
    expect(index.lookup(query("switch on two-factor authentication"))[0]?.ability_id).toBe("learned.two-factor-on");
    expect(index.lookup(query("add a user to the admin group"))[0]?.ability_id).toBe("learned.admin-add");
  });

  it("reads only the request's action: a booking named as the thing to cancel still finds the cancelling ability", () => {
    const index = createWordingIndex(titled, lexicon);
    expect(index.lookup(query("undo my room booking at the hotel"))[0]?.ability_id).toBe("learned.hotel-cancel");
  });

  it("reads a verb reversed by its prefix, not a word that merely begins like one", () => {
    expect(oppositesOf("unsubscribe", lexicon)).toContain("subscribe");
    expect(oppositesOf("subscribe", lexicon)).toContain("unsubscribe");
    expect(oppositesOf("log_out", lexicon)).toContain("sign_in");
    expect(oppositesOf("design", lexicon)).not.toContain("sign");
    expect(oppositesOf("discover", lexicon)).not.toContain("cover");
    expect(oppositesOf("unload", lexicon)).toContain("load");
  });

  it("adds WordNet's antonyms of the request's verb, besides the domain's pairs", () => {
    for (const [asked, opposite] of [
      ["sell", "buy"],
      ["decrease", "increase"],
      ["lower", "raise"],
      ["withdraw", "deposit"],
      ["deposit", "withdraw"],
      ["exclude", "include"],
    ] as const) {
      expect(oppositesOf(asked, lexicon), asked).toContain(opposite);
    }
    // The domain's pairs stay, WordNet has none for them.
    expect(wordnet.antonyms("book")).toEqual([]);
    expect(oppositesOf("book", lexicon)).toContain("cancel");
    // Common verbs are not opposed to words WordNet relates to them only in a rare sense.
    expect(oppositesOf("take", lexicon)).not.toContain("give");
    expect(oppositesOf("give", lexicon)).not.toContain("take");
    expect(oppositesOf("find", lexicon)).not.toContain("lose");
    expect(oppositesOf("keep", lexicon)).not.toContain("lose");
    expect(oppositesOf("design", lexicon)).not.toContain("sign");
  });

  it("never opposes two words the domain gives as one feature or action", () => {
    for (const term of domainTerms()) {
      const related = lexicon.related(term);
      expect(
        oppositesOf(term, lexicon).filter((opposite) => related.has(opposite)),
        term,
      ).toEqual([]);
    }
  });

  it("refuses an ability for the opposite action WordNet names, where it was found before", () => {
    const money = [
      ability("shares-buy", "Buy shares of a stock"),
      ability("limit-increase", "Increase the credit limit on my card"),
      ability("thermostat-raise", "Raise the thermostat temperature"),
      ability("check-deposit", "Deposit a check into my checking account"),
      ability("survey-feedback", "Give feedback in the customer survey"),
      ability("stock-purchase", "Purchase bonds from the treasury"),
      ability("subscription-start", "Start a streaming subscription"),
    ];
    const withoutAntonyms = withDomainPhrasing(noAntonyms(wordnet));
    const before = createWordingIndex(money, withoutAntonyms);
    const index = createWordingIndex(money, lexicon);
    const opposite: Array<[string, string]> = [
      ["sell my shares of the stock", "learned.shares-buy"],
      ["decrease the credit limit on my card", "learned.limit-increase"],
      ["lower the thermostat temperature", "learned.thermostat-raise"],
      ["withdraw money from my checking account", "learned.check-deposit"],
      // The antonym's synonym in the pair's sense: "buy, purchase" ↔ "sell", "begin, start" ↔ "end".
      ["sell bonds to the treasury", "learned.stock-purchase"],
      ["end my streaming subscription", "learned.subscription-start"],
    ];
    for (const [text, id] of opposite) {
      expect(
        before.lookup(query(text)).map((match) => match.ability_id),
        text,
      ).toContain(id);
      expect(
        index.lookup(query(text)).map((match) => match.ability_id),
        text,
      ).not.toContain(id);
    }
    expect(index.explain(query("sell my shares"), "learned.shares-buy")?.rejections).toContain(
      'opposite_action: the request asks to "sell", the opposite of "buy" at the start of its title',
    );
    // The same abilities asked for in their own direction, or with a verb WordNet opposes only in a rare sense, are found.
    for (const [text, id] of [
      ["purchase shares of a stock", "learned.shares-buy"],
      ["raise the thermostat temperature", "learned.thermostat-raise"],
      ["take the customer survey", "learned.survey-feedback"],
    ] as const) {
      expect(index.lookup(query(text))[0]?.ability_id, text).toBe(id);
    }
  });
});

describe("a title's share counted in words, a phrase for its words (issue #15)", () => {
  it("counts a two-word phrase of a title as two words: finding one of them covers half of it", () => {
    expect(contentSize("display_name")).toBe(2);
    expect(contentSize("sign_up")).toBe(1);
    expect(contentSize("out_of_office")).toBe(1);
    expect(titleSize("Change my display name", lexicon)).toBe(3);
    const index = createWordingIndex([ability("display-name", "Change my display name"), ability("weather", "Show the weather forecast")], lexicon);
    // "name" alone is a third of the title, not half of it: a question about naming a pet is not this ability.
    expect(index.lookup(query("what's a good name for a cat"))).toEqual([]);
    expect(index.lookup(query("edit my nickname"))[0]?.ability_id).toBe("learned.display-name");
    expect(index.lookup(query("change my display name"))[0]?.ability_id).toBe("learned.display-name");
  });
});

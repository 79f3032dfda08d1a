import { beforeAll, describe, expect, it } from "vitest";
import { loadWordNetLexicon } from "../lexicon/wordnet-lexicon";
import type { Lexicon } from "../lexicon/wording-lexicon";
import { withDomainPhrasing } from "./wording-domain";
import { createSpellingReader, oneSlipAway, spellingReason } from "./wording-spelling";

// The real lexical resource: what the reader knows is WordNet's.
let lexicon: Lexicon;
beforeAll(async () => {
  lexicon = withDomainPhrasing(await loadWordNetLexicon());
}, 60_000);

describe("oneSlipAway", () => {
  it("lists every word one letter left out, added, changed or two letters swapped away, each once, not the word itself", () => {
    const near = oneSlipAway("form");
    expect(near.has("from")).toBe(true); // swapped
    expect(near.has("for")).toBe(true); // left out
    expect(near.has("forms")).toBe(true); // added
    expect(near.has("farm")).toBe(true); // changed
    expect(near.has("form")).toBe(false);
    expect(near.has("fomr")).toBe(true);
    expect(near.has("frmo")).toBe(false); // two slips
    // 4 left out, 3 swapped, 4 × 25 changed, 5 × 26 added, less repeats.
    expect(near.size).toBeLessThanOrEqual(4 + 3 + 100 + 130);
    expect(near.size).toBeGreaterThan(200);
  });
});

describe("createSpellingReader", () => {
  const snapshotWords = new Set(["track", "package", "delivery", "renew", "library", "book", "prescription", "refill", "zillow"]);
  const reader = () => createSpellingReader(lexicon, (lemma) => snapshotWords.has(lemma));

  it("reads a word nobody knows as the known word one slip away, an ability's word first", () => {
    expect(reader().read("where is my pakage")).toEqual({ text: "where is my package", corrections: [{ typed: "pakage", read: "package" }] });
    expect(reader().read("renew my libary books").text).toBe("renew my library books");
    expect(reader().read("refil my perscription").text).toBe("refill my prescription");
    // Not an ability's word, a dictionary word: still read, for the meaning of the request.
    expect(reader().read("when will my parcel arrvie").text).toBe("when will my parcel arrive");
  });

  it("leaves known words, names, short words, numbers, compared adjectives, function words and words run together as typed", () => {
    const unchanged = [
      "track the delivery",
      "find a flat on Zillow for Kowalski",
      "email Nguyen the invoice",
      "ordr my meds", // four letters: too many words are one slip away
      "order 2fa codes",
      "the biggest and happiest order",
      "share it among the team",
      "change my username",
      "I don't want it",
    ];
    for (const text of unchanged) expect(reader().read(text), text).toEqual({ text, corrections: [] });
  });

  it("reads a word one slip away strictly: a word the lexicon reads only by cutting an ending off is not a mend", () => {
    // "betaer" is "beta" with an ending cut off, "heater" is a word: the heater, not the beta.
    expect(createSpellingReader(lexicon, () => false).read("the hetaer is broken").text).toBe("the heater is broken");
    // A regular inflection of a listed word is a word: "pakages" is read as "packages".
    expect(reader().read("track my pakages").text).toBe("track my packages");
    // …but not a spelling no inflection makes: "liveing" is not "live" + "ing".
    expect(reader().read("turn off the livving room lights").text).toBe("turn off the living room lights");
  });

  it("reads a five-letter word only as an ability's word or a function word (a dictionary word is too easily one slip away)", () => {
    // "vitae" is one slip from "vital"; nothing of the snapshot is.
    expect(reader().read("upload my vitae").corrections).toEqual([]);
    // "trakc" is one slip from the ability word "track".
    expect(reader().read("trakc my parcel").text).toBe("track my parcel");
    expect(reader().read("renew thier books").text).toBe("renew their books");
  });

  it("says what it mended, for explain-match", () => {
    expect(spellingReason([])).toBeUndefined();
    expect(spellingReason([{ typed: "pakage", read: "package" }])).toBe(
      'spelling: read "pakage" as "package" (as typed, neither an ability\'s word nor a dictionary word)',
    );
  });
});

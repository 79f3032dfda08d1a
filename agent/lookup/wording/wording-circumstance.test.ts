import { beforeAll, describe, expect, it } from "vitest";
import { loadWordNetLexicon } from "../lexicon/wordnet-lexicon";
import { AbilityAvailabilityEntrySchema } from "../../../shared/abilities/availability";
import { AbilityLookupQuerySchema } from "../../../shared/abilities/lookup-contract";
import { circumstanceCuesOf } from "./wording-circumstance";
import { withDomainPhrasing } from "./wording-domain";
import { queryTermsOf } from "./wording-expansion";
import { createWordingIndex } from "./wording-index";
import type { Lexicon } from "../lexicon/wording-lexicon";
import type { LookupDocument } from "./wording-score";
import { normalizeText } from "./wording-terms";

// The real lexical resource: a cue's words are widened by it like any request word.
let lexicon: Lexicon;
beforeAll(async () => {
  lexicon = withDomainPhrasing(await loadWordNetLexicon());
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
const query = (text: string) => AbilityLookupQuerySchema.parse({ user_query: text, install_lanes_allowed: ["experimental_private"], schema_version: 1 });
const labels = (text: string) => circumstanceCuesOf(normalizeText(text)).map((cue) => cue.label);

describe("requests that name a task by its circumstance (issue #15)", () => {
  it("reads the question or complaint, contractions and all", () => {
    expect(labels("where's my parcel?")).toEqual(["where is …"]);
    expect(labels("Where are our tickets")).toEqual(["where is …"]);
    expect(labels("when will my order arrive")).toEqual(["when will … arrive"]);
    expect(labels("my laptop isn't working")).toEqual(["… not working"]);
    expect(labels("the printer stopped working")).toEqual(["… not working"]);
    expect(labels("I forgot my password")).toEqual(["forgot …"]);
    expect(labels("I can't log in")).toEqual(["forgot …"]);
    expect(labels("how much data do I have left")).toEqual(["how much … my"]);
    expect(labels("what's my credit score")).toEqual(["what is my …"]);
    expect(labels("my wallet was stolen")).toEqual(["… lost or stolen"]);
    expect(labels("my membership expires next week")).toEqual(["… expiring"]);
    expect(labels("we're running low on coffee pods")).toEqual(["running low on …"]);
    expect(labels("the lamp arrived broken")).toEqual(["… arrived damaged"]);
    expect(labels("I can't make it to the dentist on friday")).toEqual(["can't make it"]);
    expect(labels("the gym charged me twice this month")).toEqual(["charged twice"]);
  });

  it("leaves requests that only share a word alone", () => {
    for (const text of [
      "where can I get my tax statement",
      "where do penguins live",
      "how many bones are in the human body",
      "what's the capital of france",
      "when is the next full moon",
      "export the invoices",
      "I don't want these emails anymore",
      "work from home tomorrow",
      "a broken heart",
      "lost in translation movie times",
      "make it snow",
      "running shoes on sale",
      "the best way to run a marathon",
    ]) {
      expect(labels(text)).toEqual([]);
    }
  });

  it("adds one word per cue, after the request's own, never read as its action", () => {
    const terms = queryTermsOf("where is my package", lexicon);
    expect(terms.map((term) => term.word)).toEqual(["package", "where is …"]);
    const cue = terms[1];
    expect(cue?.implied).toBe("where is …");
    expect(cue?.lemmas).toContain("track");
    expect(cue?.action).toBeUndefined();
    expect(cue?.opposites).toEqual([]);
    // The request's own first word keeps its action reading.
    expect(queryTermsOf("delete my account, I don't want it anymore", lexicon)[0]?.action).toBe(true);
  });

  it("tells apart two abilities on the same object by what the circumstance asks", () => {
    const index = createWordingIndex([ability("track", "Track a package"), ability("pickup", "Schedule a package pickup")], lexicon);
    expect(index.lookup(query("where is my package"))[0]?.ability_id).toBe("learned.track");
    expect(index.explain(query("where is my package"), "learned.track")?.reasons.join(" ")).toContain(
      '"where is …" found as "track" in title (the action the request\'s circumstance implies: it ranks, it does not make a match)',
    );
    // Without the circumstance, the object alone finds both: the pickup is not pushed out.
    expect(index.lookup(query("package pickup"))[0]?.ability_id).toBe("learned.pickup");
  });

  it("ranks with a cue, never matches by it: a question about something no ability holds finds nothing", () => {
    const index = createWordingIndex(
      [
        ability("track", "Track the delivery of my order"),
        ability("reset", "Reset my account password"),
        ability("renew", "Renew my passport"),
        ability("usage", "Check my data usage"),
      ],
      lexicon,
    );
    for (const text of [
      "where are my keys",
      "when will spring come",
      "I forgot my umbrella",
      "my milk expired",
      "what's my zodiac sign",
      "how much do I weigh",
    ]) {
      expect(index.lookup(query(text))).toEqual([]);
    }
    expect(index.explain(query("where are my keys"), "learned.track")?.reasons.join(" ")).toContain("it ranks, it does not make a match");
  });

  it("finds what a locked-out person asks for", () => {
    const index = createWordingIndex(
      [
        ability("reset", "Reset my account password"),
        ability("profile", "Update my account profile"),
        ability("unsubscribe", "Unsubscribe from newsletters"),
        ability("read", "Read the latest newsletter"),
      ],
      lexicon,
    );
    expect(index.lookup(query("I can't sign in to my account"))[0]?.ability_id).toBe("learned.reset");
    expect(index.lookup(query("my account is locked out"))[0]?.ability_id).toBe("learned.reset");
  });
});

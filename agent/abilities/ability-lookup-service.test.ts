import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  AbilityAvailabilityEntrySchema,
  AbilityAvailabilitySnapshotSchema,
  type AbilityAvailabilityEntry,
  type AbilityAvailabilitySnapshot,
} from "../../shared/abilities/availability";
import { AbilityLookupQuerySchema } from "../../shared/abilities/lookup-contract";
import type { MemoryStore } from "../memory/memory-store";
import { openTempMemoryStore } from "../test-support/temp-memory";
import { createAbilityLookupService, whenToUseLines } from "./ability-lookup-service";
import { createWordNetLexiconLoader } from "../lookup/lexicon/wordnet-lexicon";
import { createSentenceEncoder } from "../lookup/meaning/sentence-encoder";

describe("whenToUseLines (issue #15)", () => {
  it("reads the lines of the When to use section as written, without the Markdown escapes", () => {
    const markdown = [
      "---",
      'name: "x"',
      "---",
      "# Export invoices\n",
      "## When to use\n",
      "- When the user asks to export the \\*monthly\\* invoices",
      "- When the accountant needs a CSV",
      "",
      "## When not to use\n",
      "- When the user only asks about invoices",
    ].join("\n");
    expect(whenToUseLines(markdown)).toEqual(["When the user asks to export the *monthly* invoices", "When the accountant needs a CSV"]);
  });

  it("is empty for a SKILL.md without the section", () => {
    expect(whenToUseLines("# Title\n\nSome text.\n")).toEqual([]);
  });
});

describe("trigger tests through the wording matcher (issue #15)", () => {
  const entry = (over: Partial<z.input<typeof AbilityAvailabilityEntrySchema>>): AbilityAvailabilityEntry =>
    AbilityAvailabilityEntrySchema.parse({
      family: "browser",
      source: "learned",
      install_lane: "experimental_private",
      enabled: true,
      usable_now: true,
      schema_version: 1,
      ...over,
    });
  const exportInvoices = entry({
    ability_id: "learned.export-invoices",
    title: "Export the monthly invoices",
    trigger_phrases: ["export the monthly invoices"],
  });
  const bookRoom = entry({ ability_id: "learned.book-room", title: "Book a meeting room for the team", trigger_phrases: ["book a meeting room"] });
  let memory: MemoryStore;
  let cleanup: () => Promise<void>;
  const snapshot: AbilityAvailabilitySnapshot = AbilityAvailabilitySnapshotSchema.parse({
    abilities: [bookRoom],
    snapshot_as_of: "2026-11-24T10:00:00.000Z",
    schema_version: 1,
  });
  const lexicon = createWordNetLexiconLoader();
  const service = () => createAbilityLookupService({ memory, snapshot: async () => ({ snapshot }), lexicon });

  beforeAll(async () => {
    ({ memory, cleanup } = await openTempMemoryStore());
  }, 60_000);
  afterAll(async () => cleanup());

  it("judges a skill alone as lookup would: a paraphrase finds it, another action on the same things does not", async () => {
    const verdictOf = await service().verdictsFor(exportInvoices);
    expect((await verdictOf("download this month's bills")).matched).toBe(true);
    expect((await verdictOf("delete all invoices")).matched).toBe(false);
    expect((await verdictOf("tell me a joke")).matched).toBe(false);
    // A quarantined skill is found for nothing.
    const quarantined = await service().verdictsFor({ ...exportInvoices, checkpoint_health: "quarantined" });
    expect((await quarantined("export the monthly invoices")).rejections).toContain("quarantined");
  }, 60_000);

  it("reads requests with our domain's phrasing (wording-domain.ts): app words WordNet does not link", async () => {
    const checkout = entry({ ability_id: "learned.checkout", title: "Check out the cart and place the order", trigger_phrases: ["check out the cart"] });
    const verdictOf = await service().verdictsFor(checkout);
    expect((await verdictOf("buy everything in my basket")).matched).toBe(true);
    expect((await verdictOf("buy everything in my basket")).reasons.join(" ")).toContain('"basket" found via related word "cart"');
  }, 60_000);

  it("looks a request up among the installed abilities with a candidate that is not installed yet", async () => {
    const lookups = service();
    const query = (text: string) => AbilityLookupQuerySchema.parse({ user_query: text, install_lanes_allowed: ["experimental_private"], schema_version: 1 });
    expect((await lookups.lookup(query("save the invoices of the month as a file"))).map((match) => match.ability_id)).toEqual([]);
    expect((await lookups.lookupWith(exportInvoices, query("export the invoices for this month")))[0]?.ability_id).toBe("learned.export-invoices");
    expect((await lookups.lookupWith(exportInvoices, query("reserve a room for the team")))[0]?.ability_id).toBe("learned.book-room");
  }, 60_000);
});

describe("lookup by meaning as well as wording (issue #15, eighth round)", () => {
  const entry = (over: Partial<z.input<typeof AbilityAvailabilityEntrySchema>>): AbilityAvailabilityEntry =>
    AbilityAvailabilityEntrySchema.parse({
      family: "browser",
      source: "learned",
      install_lane: "experimental_private",
      enabled: true,
      usable_now: true,
      schema_version: 1,
      ...over,
    });
  const abilities = [
    entry({ ability_id: "learned.credit-limit", title: "Increase the credit card limit", trigger_phrases: ["increase the credit card limit"] }),
    entry({ ability_id: "learned.heater", title: "Book a repair for the broken heater", trigger_phrases: ["book a repair for the broken heater"] }),
    entry({ ability_id: "learned.invoices", title: "Export the monthly invoices", trigger_phrases: ["export the monthly invoices"] }),
    entry({ ability_id: "learned.parcel", title: "Track a package delivery", trigger_phrases: ["track a package delivery"], checkpoint_health: "quarantined" }),
    entry({
      ability_id: "learned.table",
      title: "Reserve a table at a restaurant",
      trigger_phrases: ["reserve a table at a restaurant"],
      negative_triggers: ["cancel"],
    }),
  ];
  const snapshot: AbilityAvailabilitySnapshot = AbilityAvailabilitySnapshotSchema.parse({
    abilities,
    snapshot_as_of: "2026-11-24T10:00:00.000Z",
    schema_version: 1,
  });
  const lexicon = createWordNetLexiconLoader();
  const encoder = createSentenceEncoder();
  let memory: MemoryStore;
  let cleanup: () => Promise<void>;
  const query = (text: string) => AbilityLookupQuerySchema.parse({ user_query: text, schema_version: 1 });
  const ids = async (service: ReturnType<typeof createAbilityLookupService>, text: string) =>
    (await service.lookup(query(text))).map((match) => match.ability_id);

  beforeAll(async () => {
    ({ memory, cleanup } = await openTempMemoryStore());
  }, 60_000);
  afterAll(async () => cleanup());

  it("finds an ability asked for in other words, where the wording alone finds nothing; an unrelated request still finds nothing", async () => {
    const byMeaning = createAbilityLookupService({ memory, snapshot: async () => ({ snapshot }), lexicon, encoder });
    const byWording = createAbilityLookupService({ memory, snapshot: async () => ({ snapshot }), lexicon });
    expect(await ids(byWording, "fix the boiler")).toEqual([]);
    expect((await ids(byMeaning, "fix the boiler"))[0]).toBe("learned.heater");
    expect((await ids(byMeaning, "bump up my credit line"))[0]).toBe("learned.credit-limit");
    expect(await ids(byMeaning, "tell me a joke")).toEqual([]);
    expect(await ids(byMeaning, "what's the weather tomorrow")).toEqual([]);
  }, 60_000);

  it("judges a proposal's trigger tests as lookup will find it: by meaning too", async () => {
    const heater = abilities[1] as AbilityAvailabilityEntry;
    const byMeaning = await createAbilityLookupService({ memory, snapshot: async () => ({ snapshot }), lexicon, encoder }).verdictsFor(heater);
    const byWording = await createAbilityLookupService({ memory, snapshot: async () => ({ snapshot }), lexicon }).verdictsFor(heater);
    expect((await byWording("fix the boiler")).matched).toBe(false);
    expect((await byMeaning("fix the boiler")).matched).toBe(true);
    expect((await byMeaning("tell me a joke")).matched).toBe(false);
  }, 60_000);

  it("reads a request with its typos mended, by wording and by meaning, and explain-match says what it read (ninth round)", async () => {
    const service = createAbilityLookupService({ memory, snapshot: async () => ({ snapshot }), lexicon, encoder });
    expect((await ids(service, "the hetaer is brokn"))[0]).toBe("learned.heater");
    expect((await ids(service, "increaes my limit"))[0]).toBe("learned.credit-limit");
    const verdict = await service.explain(query("increaes my limit"), "learned.credit-limit");
    expect(verdict?.matched).toBe(true);
    expect(verdict?.reasons[0]).toBe('spelling: read "increaes" as "increase" (as typed, neither an ability\'s word nor a dictionary word)');
    expect((await service.explain(query("increase my limit"), "learned.credit-limit"))?.reasons.some((reason) => reason.startsWith("spelling:"))).toBe(false);
    // A trigger test is judged as lookup reads it.
    expect((await (await service.verdictsFor(abilities[1] as AbilityAvailabilityEntry))("my hetaer broke")).matched).toBe(true);
  }, 60_000);

  it("keeps the hard gates: a quarantined ability and a negative trigger stay out however close the meaning", async () => {
    const service = createAbilityLookupService({ memory, snapshot: async () => ({ snapshot }), lexicon, encoder });
    expect(await ids(service, "where is my package delivery")).not.toContain("learned.parcel");
    expect(await ids(service, "reserve a table at a restaurant")).toContain("learned.table");
    expect(await ids(service, "cancel my table at the restaurant")).not.toContain("learned.table");
  }, 60_000);

  it("explains which phrase a request reads like, and says when the encoder could not be loaded (then the wording alone answers)", async () => {
    const service = createAbilityLookupService({ memory, snapshot: async () => ({ snapshot }), lexicon, encoder });
    const verdict = await service.explain(query("bump up my credit line"), "learned.credit-limit");
    expect(verdict?.matched).toBe(true);
    expect(verdict?.reasons.join("\n")).toMatch(
      /meaning: the request reads closest to "increase the credit card limit" \(similarity 0\.\d\d; close enough to match on its own\)/,
    );
    const broken = createSentenceEncoder(async () => {
      throw new Error("model files missing");
    });
    const withoutModel = createAbilityLookupService({ memory, snapshot: async () => ({ snapshot }), lexicon, encoder: broken });
    const wordingOnly = createAbilityLookupService({ memory, snapshot: async () => ({ snapshot }), lexicon });
    expect(await withoutModel.lookup(query("export the invoices"))).toEqual(await wordingOnly.lookup(query("export the invoices")));
    expect((await withoutModel.explain(query("export the invoices"), "learned.invoices"))?.reasons.at(-1)).toBe(
      "meaning: not read (the sentence encoder could not be loaded: model files missing); ranked by wording alone",
    );
  }, 60_000);
});

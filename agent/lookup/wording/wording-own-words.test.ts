import { beforeAll, describe, expect, it } from "vitest";
import { usableEntry } from "../../test-support/baseline-entries";
import { AbilityLookupQuerySchema, type AbilityLookupQuery } from "../../../shared/abilities/lookup-contract";
import { loadWordNetLexicon } from "../lexicon/wordnet-lexicon";
import type { Lexicon } from "../lexicon/wording-lexicon";
import { createWordingIndex } from "./wording-index";
import type { LookupDocument } from "./wording-score";

// The real lexical resource: what the matcher is, not a stand-in for it.
let lexicon: Lexicon;
beforeAll(async () => {
  lexicon = await loadWordNetLexicon();
}, 60_000);

const query = (text: string): AbilityLookupQuery =>
  AbilityLookupQuerySchema.parse({
    user_query: text,
    install_lanes_allowed: ["experimental_private", "approved_workspace", "shared_promoted"],
    schema_version: 1,
  });

const documents = (): LookupDocument[] => [
  {
    entry: usableEntry({ ability_id: "learned.invoices", title: "Export the monthly invoices", trigger_phrases: ["download the bills"] }),
    description: "Exports every invoice of the month as a spreadsheet.",
    when_to_use: ["At the end of each month"],
    trigger_tests: ["could you export the monthly invoices for me"],
  },
  { entry: usableEntry({ ability_id: "learned.room", title: "Book a meeting room for the team", trigger_phrases: ["reserve a room"] }) },
];

const SHARED_BILLS = ["bills", "month", "spreadsheets"];

describe("an ability's own words, read once at index build (issue #34)", () => {
  it("gives the request's own words each ability's wording holds by base form, in request order", () => {
    const index = createWordingIndex(documents(), lexicon);
    const shared = (text: string, id: string) => index.sharedWords(index.readSpelling(query(text)).query, id);
    expect(shared("get me the bills of last month as spreadsheets", "learned.invoices")).toEqual(SHARED_BILLS);
    expect(shared("reserve the meeting rooms", "learned.room")).toEqual(["reserve", "meeting", "rooms"]);
    expect(shared("reserve the meeting rooms", "learned.invoices")).toEqual([]);
    expect(shared("nothing here", "learned.invoices")).toEqual([]);
  });

  it("answers from what the build read, never re-reading an ability's texts per request", () => {
    const docs = documents();
    const index = createWordingIndex(docs, lexicon);
    // Were the texts read per request, this change after the build would show.
    (docs[1] as { description?: string }).description = "Invoices, bills and spreadsheets";
    expect(index.sharedWords(query("export the invoices"), "learned.room")).toEqual([]);
    expect(index.sharedWords(query("reserve a room"), "learned.room")).toEqual(["reserve", "room"]);
  });
});

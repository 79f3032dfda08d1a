/**
 * WordNet's database text parsed into the compact tables the wording lexicon answers from
 * (`lexiconFromTables` in wording-lexicon.ts): words, synsets, pointers and senses by id in typed
 * arrays, and the verbs opposed to each other. Pure, like the lexicon: the agent reads the files and
 * stores the tables (agent/lookup/lexicon/wordnet-lexicon.ts); `wordNetTablesFingerprint` says when a
 * stored table is stale.
 */

export interface WordNetTexts {
  /** `index.noun`, `index.verb`, `index.adj`, `index.adv` */
  index: Record<WordNetPos, string>;
  /** `data.noun`, `data.verb`, `data.adj`, `data.adv` */
  data: Record<WordNetPos, string>;
  /** `index.sense` (sense keys with their corpus counts) */
  senses: string;
  /** Irregular inflections → base forms ("bought" → ["buy"], "children" → ["child"]). */
  irregular: ReadonlyMap<string, readonly string[]>;
}

export type WordNetPos = "noun" | "verb" | "adj" | "adv";
/** The parts of speech in table order: a word's `partsOfSpeech` bits and the synsets' numbering follow it. */
export const POS_LIST: readonly WordNetPos[] = ["noun", "verb", "adj", "adv"];
const POS_LETTER: Record<string, number> = { n: 0, v: 1, a: 2, s: 2, r: 3 };
/** A sense key's part of speech (its digit after "%", less one) by index in `POS_LIST`. */
const SENSE_KEY_POS = [0, 1, 2, 3, 2] as const;

/** Senses of a word followed, per part of speech: WordNet lists the most frequent first. */
const SENSES_FOLLOWED = 8;
/** WordNet lexicographer files: `noun.time` and `adv.all`. */
const LEXFILE_NOUN_TIME = 28;
const LEXFILE_ADVERB = 2;

/** An antonym pair is read when each of its words is used in the pair's sense at least this share of its tagged uses as a verb… */
const USUAL_SENSE_SHARE = 0.1;
/** …or when WordNet's corpus tagged the word fewer times than this as a verb (too few for its sense order to say a sense is unusual). */
const SENSE_EVIDENCE = 30;

/** Many short lists of numbers in two typed arrays: list `n` is `items[starts[n]]` up to `items[starts[n + 1]]`. */
export interface Lists {
  starts: Int32Array;
  items: Int32Array;
}

function listsOf(count: number, pairs: readonly number[]): Lists {
  // `pairs` is (list, item) flattened; items keep their order within a list.
  const starts = new Int32Array(count + 1);
  for (let at = 0; at < pairs.length; at += 2) starts[(pairs[at] as number) + 1] = (starts[(pairs[at] as number) + 1] as number) + 1;
  for (let n = 0; n < count; n += 1) starts[n + 1] = (starts[n + 1] as number) + (starts[n] as number);
  const next = starts.slice(0, count);
  const items = new Int32Array(pairs.length / 2);
  for (let at = 0; at < pairs.length; at += 2) {
    const list = pairs[at] as number;
    items[next[list] as number] = pairs[at + 1] as number;
    next[list] = (next[list] as number) + 1;
  }
  return { starts, items };
}

/** Pointer relations in table order: a pointer is its relation's index here × 2^28 + its target synset. */
export const RELATIONS = ["broader", "derived", "similar"] as const;

/**
 * What the lexicon answers from, by id: the words, the definition of each synset, and typed arrays
 * of synset members, pointers, senses and counts. Built from the database text by
 * `buildWordNetTables`; the agent stores it in a compact file (agent/lookup/lexicon/wordnet-lexicon.ts)
 * so that later starts read it back instead of parsing WordNet.
 */
export interface WordNetTables {
  /** Every word by id (`_` joins the words of a collocation). */
  words: readonly string[];
  synsetCount: number;
  /** A synset's definition (its gloss up to the first quoted example). */
  definition(synset: number): string;
  synsetMembers: Lists;
  /** Per synset: relation × 2^28 + target synset. */
  pointers: Lists;
  /** Per synset, parallel to `pointers`: the target word of a lexical pointer (1-based, 0 = the synset). */
  pointerWords: Lists;
  /** Per word: rank × 2^28 + synset, most frequent sense first. */
  senses: Lists;
  /** Per word: bits of the parts of speech it is a lemma of. */
  partsOfSpeech: Uint8Array;
  /** Per word: 1 for time nouns and adverbs. */
  circumstantial: Uint8Array;
  /** Per word: its sense-tagged corpus count, and the part of it in verb senses. */
  counts: Float64Array;
  verbCounts: Float64Array;
  irregular: ReadonlyMap<string, readonly string[]>;
  /** Per word: the verbs opposed to it (`Lexicon.antonyms`). */
  antonyms: Lists;
}

/**
 * Everything `buildWordNetTables` depends on besides WordNet's text, as one string: a table stored
 * under another fingerprint is stale. Anything the build reads must be listed here (all of it is in
 * this file, which imports nothing).
 */
export function wordNetTablesFingerprint(): string {
  return JSON.stringify([
    buildWordNetTables.toString(),
    readSynsets.toString(),
    resolvePointers.toString(),
    resolveAntonyms.toString(),
    readIndexes.toString(),
    readSenseCounts.toString(),
    opposedVerbEntries.toString(),
    listsOf.toString(),
    relationOf.toString(),
    canonical.toString(),
    synsetWordsOf.toString(),
    definitionOf.toString(),
    USUAL_SENSE_SHARE,
    SENSE_EVIDENCE,
    POS_LIST,
    POS_LETTER,
    SENSE_KEY_POS,
    SENSES_FOLLOWED,
    LEXFILE_NOUN_TIME,
    LEXFILE_ADVERB,
    RELATIONS,
  ]);
}

/** WordNet's data files read in order: synsets numbered as read, their words, definitions, pointers and verb antonyms unresolved. */
interface ReadSynsets {
  /** Synsets by "pos:offset", numbered in reading order. */
  synsetIds: Map<string, number>;
  synsetCount: number;
  /** Flat (synset, word) pairs, in reading order. */
  synsetWords: number[];
  lexFiles: number[];
  glosses: string[];
  /** (synset, relation, target "pos:offset", target word) flattened. */
  rawPointers: Array<string | number>;
  /** Antonym pointers ("!") between verbs, lexical: (synset, its word, target "pos:offset", the target's word). */
  rawAntonyms: Array<string | number>;
}

function readSynsets(texts: WordNetTexts, wordId: (word: string) => number): ReadSynsets {
  const read: ReadSynsets = { synsetIds: new Map(), synsetCount: 0, synsetWords: [], lexFiles: [], glosses: [], rawPointers: [], rawAntonyms: [] };
  const { synsetIds, synsetWords, lexFiles, glosses, rawPointers, rawAntonyms } = read;
  POS_LIST.forEach((pos) => {
    const text = texts.data[pos];
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf("\n", start);
      if (end < 0) end = text.length;
      if (text.charCodeAt(start) !== 32 && end > start) {
        const bar = text.indexOf(" | ", start);
        const fields = text.slice(start, bar < 0 || bar > end ? end : bar).split(" ");
        const id = read.synsetCount;
        read.synsetCount += 1;
        synsetIds.set(`${POS_LETTER[fields[2] as string]}:${fields[0]}`, id);
        lexFiles.push(Number.parseInt(fields[1] as string, 10));
        // The definition is the gloss up to its first quoted example.
        glosses.push(
          bar < 0 || bar > end
            ? ""
            : (text
                .slice(bar + 3, end)
                .split(/;\s*"/)[0]
                ?.replace(/\n/g, " ")
                .trim() ?? ""),
        );
        const count = Number.parseInt(fields[3] as string, 16);
        for (let n = 0; n < count; n += 1) synsetWords.push(id, wordId(canonical((fields[4 + 2 * n] as string).toLowerCase().replace(/\(.*\)$/, ""))));
        let at = 4 + 2 * count;
        const pointerCount = Number.parseInt(fields[at] as string, 10);
        at += 1;
        for (let n = 0; n < pointerCount; n += 1, at += 4) {
          const place = Number.parseInt((fields[at + 3] as string).slice(0, 2), 16);
          if (fields[at] === "!" && place > 0 && pos === "verb")
            rawAntonyms.push(
              id,
              synsetWords[synsetWords.length - 2 * (count - place) - 1] as number,
              `${POS_LETTER[fields[at + 2] as string]}:${fields[at + 1]}`,
              Number.parseInt((fields[at + 3] as string).slice(2), 16),
            );
          const relation = relationOf(fields[at] as string);
          if (relation === undefined) continue;
          rawPointers.push(
            id,
            RELATIONS.indexOf(relation),
            `${POS_LETTER[fields[at + 2] as string]}:${fields[at + 1]}`,
            Number.parseInt((fields[at + 3] as string).slice(2), 16),
          );
        }
      }
      start = end + 1;
    }
  });
  return read;
}

/** Pointers as (synset, relation × 2^28 + target) and, for lexical ones, the target word (1-based, 0 = the synset). */
function resolvePointers(read: ReadSynsets): { pointerPairs: number[]; pointerWordPairs: number[] } {
  const { rawPointers, synsetIds } = read;
  const pointerPairs: number[] = [];
  const pointerWordPairs: number[] = [];
  for (let at = 0; at < rawPointers.length; at += 4) {
    const target = synsetIds.get(rawPointers[at + 2] as string);
    if (target === undefined) continue;
    const from = rawPointers[at] as number;
    const relation = rawPointers[at + 1] as number;
    pointerPairs.push(from, relation * 2 ** 28 + target);
    pointerWordPairs.push(from, rawPointers[at + 3] as number);
  }
  rawPointers.length = 0;
  return { pointerPairs, pointerWordPairs };
}

/** Antonyms as (word, synset, other word, other synset), both ways as WordNet lists them. */
function resolveAntonyms(read: ReadSynsets): number[] {
  const { rawAntonyms, synsetIds, synsetWords } = read;
  const antonymPairs: number[] = [];
  for (let at = 0; at < rawAntonyms.length; at += 4) {
    const target = synsetIds.get(rawAntonyms[at + 2] as string);
    if (target === undefined) continue;
    const targetWord = synsetWordsOf(synsetWords, target)[(rawAntonyms[at + 3] as number) - 1];
    if (targetWord !== undefined) antonymPairs.push(rawAntonyms[at + 1] as number, rawAntonyms[at] as number, targetWord, target);
  }
  rawAntonyms.length = 0;
  return antonymPairs;
}

/** Senses of each lemma, most frequent first, every part of speech, from WordNet's index files. */
function readIndexes(
  texts: WordNetTexts,
  wordId: (word: string) => number,
  read: ReadSynsets,
): { sensePairs: number[]; posPairs: number[]; primaryFile: Map<number, number> } {
  const { synsetIds, lexFiles } = read;
  const sensePairs: number[] = [];
  const posPairs: number[] = [];
  const primaryFile = new Map<number, number>();
  POS_LIST.forEach((pos, posIndex) => {
    for (const line of texts.index[pos].split("\n")) {
      if (line.length === 0 || line.charCodeAt(0) === 32) continue;
      const fields = line.trim().split(" ");
      const lemma = wordId(canonical(fields[0] as string));
      const count = Number.parseInt(fields[2] as string, 10);
      posPairs.push(lemma, posIndex);
      // The lexicographer file of the word's most frequent sense, kept for the first part of speech listed (nouns first).
      const first = synsetIds.get(`${posIndex}:${fields[fields.length - count]}`);
      if (first !== undefined && !primaryFile.has(lemma)) primaryFile.set(lemma, lexFiles[first] as number);
      fields
        .slice(fields.length - count)
        .slice(0, SENSES_FOLLOWED)
        .forEach((offset, rank) => {
          const id = synsetIds.get(`${posIndex}:${offset}`);
          // The sense's rank rides along: rank × 2^28 + synset.
          if (id !== undefined) sensePairs.push(lemma, rank * 2 ** 28 + id);
        });
    }
  });
  return { sensePairs, posPairs, primaryFile };
}

/**
 * Each word's sense-tagged corpus count and the part of it in verb senses (sense keys "lemma%2:…"),
 * from `index.sense`; `antonymCounts` (keyed word × 2^20 + synset) gets the count of each antonym
 * pair word's sense.
 */
function readSenseCounts(
  sensesText: string,
  wordIds: ReadonlyMap<string, number>,
  synsetIds: ReadonlyMap<string, number>,
  wordCount: number,
  antonymCounts: Map<number, number>,
): { counts: Float64Array; verbCounts: Float64Array } {
  const counts = new Float64Array(wordCount);
  const verbCounts = new Float64Array(wordCount);
  for (const line of sensesText.split("\n")) {
    const percent = line.indexOf("%");
    if (percent <= 0) continue;
    const id = wordIds.get(line.slice(0, percent));
    const count = Number.parseInt(line.slice(line.lastIndexOf(" ") + 1), 10);
    if (id !== undefined && count > 0) counts[id] = (counts[id] as number) + count;
    if (id !== undefined && count > 0 && line.charCodeAt(percent + 1) === 50) verbCounts[id] = (verbCounts[id] as number) + count;
    // "lemma%2:… offset …": the synset's part of speech is the digit after "%" (1 noun, 2 verb, 3 adjective, 4 adverb, 5 satellite adjective).
    const synset =
      id === undefined || count <= 0
        ? undefined
        : synsetIds.get(`${SENSE_KEY_POS[line.charCodeAt(percent + 1) - 49]}:${line.slice(line.indexOf(" ") + 1, line.indexOf(" ", line.indexOf(" ") + 1))}`);
    if (synset !== undefined && antonymCounts.has((id as number) * 2 ** 20 + synset)) antonymCounts.set((id as number) * 2 ** 20 + synset, count);
  }
  return { counts, verbCounts };
}

/**
 * Verbs opposed to each other, as (word, opposed word) pairs: an antonym pair and, with it, the
 * synonyms of each word in the pair's sense. A word must usually have the sense the pair holds in:
 * "take" is "give"'s antonym in a sense it has in 3% of its uses, and "take a survey" is not the
 * opposite of "give feedback". A word WordNet's corpus tagged seldom (fewer than SENSE_EVIDENCE
 * times) has no sense order to say so.
 */
function opposedVerbEntries(
  antonymPairs: readonly number[],
  antonymCounts: ReadonlyMap<number, number>,
  verbCounts: Float64Array,
  senses: Lists,
  synsetMembers: Lists,
  synsetWords: readonly number[],
): number[] {
  const usual = (word: number, synset: number) =>
    (verbCounts[word] as number) < SENSE_EVIDENCE || (antonymCounts.get(word * 2 ** 20 + synset) as number) >= USUAL_SENSE_SHARE * (verbCounts[word] as number);
  // A word that is also the other's synonym in another sense ("ravel": tangle and untangle) is not opposed to it.
  const synonymous = (one: number, other: number) => {
    for (let sense = senses.starts[one] as number; sense < (senses.starts[one + 1] as number); sense += 1) {
      const synset = (senses.items[sense] as number) % 2 ** 28;
      for (let member = synsetMembers.starts[synset] as number; member < (synsetMembers.starts[synset + 1] as number); member += 1)
        if (synsetMembers.items[member] === other) return true;
    }
    return false;
  };
  const opposedPairs = new Set<number>();
  const antonymEntries: number[] = [];
  for (let at = 0; at < antonymPairs.length; at += 4) {
    const [word, synset, other, otherSynset] = antonymPairs.slice(at, at + 4) as [number, number, number, number];
    if (!usual(word, synset) || !usual(other, otherSynset)) continue;
    // A synonym is opposed on evidence only: WordNet's corpus saw it in the pair's sense ("block" is a synonym of "forget" never seen as one).
    const side = (lexical: number, of: number) =>
      synsetWordsOf(synsetWords, of).filter((member) => member === lexical || ((antonymCounts.get(member * 2 ** 20 + of) as number) > 0 && usual(member, of)));
    for (const one of side(word, synset)) {
      for (const two of side(other, otherSynset)) {
        if (one === two || synonymous(one, two)) continue;
        for (const [from, to] of [
          [one, two],
          [two, one],
        ] as const) {
          if (opposedPairs.has(from * 2 ** 20 + to)) continue;
          opposedPairs.add(from * 2 ** 20 + to);
          antonymEntries.push(from, to);
        }
      }
    }
  }
  return antonymEntries;
}

/**
 * Parses WordNet's text into the lexicon's tables. They hold numbers in typed arrays (words, synsets,
 * pointers and senses by id), so that what the lexicon keeps is a few megabytes rather than the
 * database text: substrings of a large string keep the whole string alive in V8, so every kept word is
 * copied out of one joined string. The bench measures the time it takes and the memory it keeps.
 */
export function buildWordNetTables(texts: WordNetTexts): WordNetTables {
  const wordIds = new Map<string, number>();
  const wordId = (word: string) => {
    let id = wordIds.get(word);
    if (id === undefined) {
      id = wordIds.size;
      wordIds.set(word, id);
    }
    return id;
  };
  const read = readSynsets(texts, wordId);
  const { synsetIds, synsetCount, synsetWords, glosses } = read;
  const { pointerPairs, pointerWordPairs } = resolvePointers(read);
  const antonymPairs = resolveAntonyms(read);
  // How often each word of an antonym pair's two synsets is used in that sense (its tagged count), read from `index.sense` below.
  const antonymCounts = new Map<number, number>();
  for (let at = 0; at < antonymPairs.length; at += 2)
    for (const word of synsetWordsOf(synsetWords, antonymPairs[at + 1] as number)) antonymCounts.set(word * 2 ** 20 + (antonymPairs[at + 1] as number), 0);
  const { sensePairs, posPairs, primaryFile } = readIndexes(texts, wordId, read);

  // Words copied out of the database text (see above), then the tables by word id.
  const words = [...wordIds.keys()].join("\n").split("\n");
  wordIds.clear();
  words.forEach((word, id) => wordIds.set(word, id));
  const definitionTexts = glosses.join("\n").split("\n");
  glosses.length = 0;
  // Words that say when or how rather than what (time nouns, adverbs): the details of a request, not its task.
  const circumstantial = new Uint8Array(words.length);
  // A phrase WordNet lists ("time_off", "day_off") names a thing of its own, not when it happens.
  for (const [id, file] of primaryFile)
    if ((file === LEXFILE_NOUN_TIME || file === LEXFILE_ADVERB) && !(words[id] as string).includes("_")) circumstantial[id] = 1;
  const { counts, verbCounts } = readSenseCounts(texts.senses, wordIds, synsetIds, words.length, antonymCounts);
  synsetIds.clear();
  const synsetMembers = listsOf(synsetCount, synsetWords);
  const senses = listsOf(words.length, sensePairs);
  // Parts of speech each word is a lemma of, as bits: a detachment rule only yields a lemma of its own.
  const partsOfSpeech = new Uint8Array(words.length);
  for (let at = 0; at < posPairs.length; at += 2)
    partsOfSpeech[posPairs[at] as number] = (partsOfSpeech[posPairs[at] as number] as number) | (1 << (posPairs[at + 1] as number));

  return {
    words,
    synsetCount,
    // Made outside this function: a closure here would keep the whole database text alive.
    definition: definitionOf(definitionTexts),
    synsetMembers,
    pointers: listsOf(synsetCount, pointerPairs),
    pointerWords: listsOf(synsetCount, pointerWordPairs),
    senses,
    partsOfSpeech,
    circumstantial,
    counts,
    verbCounts,
    irregular: texts.irregular,
    antonyms: listsOf(words.length, opposedVerbEntries(antonymPairs, antonymCounts, verbCounts, senses, synsetMembers, synsetWords)),
  };
}

/** The words of a synset, in order, from the flat (synset, word) pairs in reading order. */
function synsetWordsOf(pairs: readonly number[], synset: number): number[] {
  // Synsets are numbered in reading order: a binary search finds the synset's first pair.
  let low = 0;
  let high = pairs.length / 2;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((pairs[2 * middle] as number) < synset) low = middle + 1;
    else high = middle;
  }
  const out: number[] = [];
  for (let at = low; pairs[2 * at] === synset; at += 1) out.push(pairs[2 * at + 1] as number);
  return out;
}

function definitionOf(definitions: readonly string[]): (synset: number) => string {
  return (synset) => definitions[synset] as string;
}

function relationOf(symbol: string): (typeof RELATIONS)[number] | undefined {
  switch (symbol) {
    case "@":
    case "@i":
      return "broader";
    case "+":
    case "\\":
      return "derived";
    case "&":
      return "similar";
    default:
      return undefined;
  }
}

/** WordNet joins the words of a collocation with `_` and some compounds with `-`: both become `_`. */
function canonical(word: string): string {
  return word.replace(/-/g, "_");
}

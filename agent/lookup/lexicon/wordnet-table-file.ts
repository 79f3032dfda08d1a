import type { Lists, WordNetTables } from "./wordnet-tables";

/**
 * The wording lexicon's tables (wordnet-tables.ts) as one compact file, so that
 * the agent reads a few megabytes back instead of parsing WordNet's 30 MB of text at each start.
 *
 * Layout: 8 bytes of magic ("ELNWNT" and the format's two-digit version), a 4-byte length and a JSON header (the fingerprint of what built the
 * tables, counts, and where each section is), then the sections, each on an 8-byte boundary:
 * typed arrays as they are in memory (little-endian), the words as latin1 text joined by "\n", the
 * definitions as latin1 text with an offset table. Definitions are decoded when asked for, so the
 * heap holds only the words and the maps built from them.
 */
/** Format 02 adds the antonyms. A file of another format is refused (`WordNetTableFileError`) and rebuilt. */
export const MAGIC = "ELNWNT02";

type ArrayName =
  | "synsetMembers.starts"
  | "synsetMembers.items"
  | "pointers.starts"
  | "pointers.items"
  | "pointerWords.starts"
  | "pointerWords.items"
  | "senses.starts"
  | "senses.items"
  | "antonyms.starts"
  | "antonyms.items"
  | "partsOfSpeech"
  | "circumstantial"
  | "counts"
  | "verbCounts"
  | "definitionStarts";
type BlobName = "words" | "definitions" | "irregular";

interface Section {
  name: ArrayName | BlobName;
  kind: "int32" | "uint8" | "float64" | "latin1" | "utf8";
  offset: number;
  bytes: number;
}

interface Header {
  fingerprint: string;
  synsetCount: number;
  sections: Section[];
}

export class WordNetTableFileError extends Error {}

/** The tables as the file's bytes. `fingerprint` says what built them (a different one is stale). */
export function encodeWordNetTables(tables: WordNetTables, fingerprint: string): Buffer {
  const definitionStarts = new Int32Array(tables.synsetCount + 1);
  const definitionParts: string[] = [];
  let length = 0;
  for (let synset = 0; synset < tables.synsetCount; synset += 1) {
    const text = tables.definition(synset);
    definitionParts.push(text);
    length += Buffer.byteLength(text, "latin1");
    definitionStarts[synset + 1] = length;
  }
  const payloads: Array<{ name: Section["name"]; kind: Section["kind"]; data: Buffer }> = [];
  const typed = (name: ArrayName, array: Int32Array | Uint8Array | Float64Array) => {
    const kind = array instanceof Int32Array ? "int32" : array instanceof Uint8Array ? "uint8" : "float64";
    payloads.push({ name, kind, data: Buffer.from(array.buffer, array.byteOffset, array.byteLength) });
  };
  const lists: Array<["synsetMembers" | "pointers" | "pointerWords" | "senses" | "antonyms", Lists]> = [
    ["synsetMembers", tables.synsetMembers],
    ["pointers", tables.pointers],
    ["pointerWords", tables.pointerWords],
    ["senses", tables.senses],
    ["antonyms", tables.antonyms],
  ];
  for (const [name, list] of lists) {
    typed(`${name}.starts`, list.starts);
    typed(`${name}.items`, list.items);
  }
  typed("partsOfSpeech", tables.partsOfSpeech);
  typed("circumstantial", tables.circumstantial);
  typed("counts", tables.counts);
  typed("verbCounts", tables.verbCounts);
  typed("definitionStarts", definitionStarts);
  payloads.push({ name: "words", kind: "latin1", data: Buffer.from(tables.words.join("\n"), "latin1") });
  payloads.push({ name: "definitions", kind: "latin1", data: Buffer.from(definitionParts.join(""), "latin1") });
  payloads.push({ name: "irregular", kind: "utf8", data: Buffer.from(JSON.stringify([...tables.irregular]), "utf8") });

  const sections: Section[] = [];
  let offset = 0;
  for (const payload of payloads) {
    sections.push({ name: payload.name, kind: payload.kind, offset, bytes: payload.data.byteLength });
    offset = align(offset + payload.data.byteLength);
  }
  const header = Buffer.from(JSON.stringify({ fingerprint, synsetCount: tables.synsetCount, sections } satisfies Header), "utf8");
  const start = align(MAGIC.length + 4 + header.byteLength);
  const out = Buffer.alloc(start + offset);
  out.write(MAGIC, 0, "latin1");
  out.writeUInt32LE(header.byteLength, MAGIC.length);
  header.copy(out, MAGIC.length + 4);
  payloads.forEach((payload, index) => payload.data.copy(out, start + (sections[index] as Section).offset));
  return out;
}

/** Reads a table file back; undefined when it was built by something else (another fingerprint). */
export function decodeWordNetTables(file: Buffer, fingerprint: string): WordNetTables | undefined {
  if (file.byteLength < MAGIC.length + 4 || file.toString("latin1", 0, MAGIC.length - 2) !== MAGIC.slice(0, -2))
    throw new WordNetTableFileError("not a WordNet table file");
  const format = file.toString("latin1", MAGIC.length - 2, MAGIC.length);
  if (format !== MAGIC.slice(-2)) throw new WordNetTableFileError(`a WordNet table file of format ${format}; this build reads format ${MAGIC.slice(-2)}`);
  const headerBytes = file.readUInt32LE(MAGIC.length);
  const header = JSON.parse(file.toString("utf8", MAGIC.length + 4, MAGIC.length + 4 + headerBytes)) as Header;
  if (header.fingerprint !== fingerprint) return undefined;
  // Typed arrays need aligned offsets: a buffer that is not 8-aligned is copied once.
  const bytes = file.byteOffset % 8 === 0 ? file : Buffer.from(file);
  const start = align(MAGIC.length + 4 + headerBytes);
  const section = (name: Section["name"]) => {
    const found = header.sections.find((candidate) => candidate.name === name);
    if (found === undefined || start + found.offset + found.bytes > bytes.byteLength)
      throw new WordNetTableFileError(`the table file has no whole ${name} section`);
    return { at: bytes.byteOffset + start + found.offset, bytes: found.bytes, kind: found.kind };
  };
  const int32 = (name: ArrayName) => {
    const { at, bytes: size, kind } = section(name);
    if (kind !== "int32") throw new WordNetTableFileError(`${name} is not int32`);
    return new Int32Array(bytes.buffer, at, size / 4);
  };
  const uint8 = (name: ArrayName) => {
    const { at, bytes: size } = section(name);
    return new Uint8Array(bytes.buffer, at, size);
  };
  const float64 = (name: ArrayName) => {
    const { at, bytes: size } = section(name);
    return new Float64Array(bytes.buffer, at, size / 8);
  };
  const text = (name: BlobName, encoding: "latin1" | "utf8") => {
    const { at, bytes: size } = section(name);
    return Buffer.from(bytes.buffer, at, size).toString(encoding);
  };
  const lists = (name: "synsetMembers" | "pointers" | "pointerWords" | "senses" | "antonyms"): Lists => ({
    starts: int32(`${name}.starts`),
    items: int32(`${name}.items`),
  });
  const definitionStarts = int32("definitionStarts");
  const definitions = section("definitions");
  const definitionBytes = Buffer.from(bytes.buffer, definitions.at, definitions.bytes);
  return {
    words: text("words", "latin1").split("\n"),
    synsetCount: header.synsetCount,
    definition: (synset) => definitionBytes.toString("latin1", definitionStarts[synset], definitionStarts[synset + 1]),
    synsetMembers: lists("synsetMembers"),
    pointers: lists("pointers"),
    pointerWords: lists("pointerWords"),
    senses: lists("senses"),
    antonyms: lists("antonyms"),
    partsOfSpeech: uint8("partsOfSpeech"),
    circumstantial: uint8("circumstantial"),
    counts: float64("counts"),
    verbCounts: float64("verbCounts"),
    irregular: new Map(JSON.parse(text("irregular", "utf8")) as Array<[string, string[]]>),
  };
}

function align(offset: number): number {
  return Math.ceil(offset / 8) * 8;
}

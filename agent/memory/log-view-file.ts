import { createHash } from "node:crypto";
import { z } from "zod";
import type { KeptRecord } from "./log-view-records";

/**
 * Issue 32: a log's current view as its file keeps it (the one reader and writer of that file):
 * each live id's record and marks in the order the log first named them, the byte of the log folded
 * up to, and a digest of the log's bytes before it (`anchor`, checked by agent/memory/log-view.ts).
 */
export interface ViewFile {
  folded_to_byte: number;
  anchor: string;
  records: Map<string, KeptRecord>;
  /** Short texts kept with an id in the index (a session's state and when it entered it, an ability's skill name). */
  marks: Map<string, readonly string[]>;
  /** 1: written before records were read when first needed (one JSON document, every record parsed at start, one mark at most); written again as 2. */
  format: 1 | 2;
}

/*
 * Format 2, one JSON document whose first line is all start-up parses:
 *
 *   {"sha256":"<64 hex>","view":{"schema_version":2,"folded_to_byte":…,"anchor":"…","index":[["<id>",<bytes>,"<mark>",…],…]},"records":[
 *   <record>,
 *   <record>
 *   ]}
 *
 * `index` names each record's id, the length in bytes of its JSON text, and its marks if it has any;
 * the records follow in the index's order, one a line. A compact JSON text holds no raw newline, so
 * the first line ends where the index does. The digest is of everything between `"view":` and the
 * last `}`: a view changed or cut on disk is not trusted.
 *
 * Format 1 (still read): `{"sha256":"<64 hex>","view":{"folded_to_byte":…,"anchor":"…","entries":{"<id>":{"record":…,"mark":"…"}},"schema_version":1}}`.
 */
const DIGEST_PREFIX = '{"sha256":"';
const VIEW_AT = DIGEST_PREFIX.length + 64 + '","view":'.length;
const PREFIX_BYTES = Buffer.from(DIGEST_PREFIX);
const RECORDS_OPEN = Buffer.from(',"records":[');
/** ASCII whitespace at the end of a view file (it is written with a trailing newline). */
const TRAILING_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const NEWLINE = 0x0a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

const FormatOneSchema = z.object({
  folded_to_byte: z.number().int().min(0),
  anchor: z.string(),
  /** Each entry `{record, mark?}` (`isFormatOneEntry`). */
  entries: z.record(z.string(), z.unknown()),
  schema_version: z.literal(1),
});

const FormatTwoHeadSchema = z.object({
  schema_version: z.literal(2),
  folded_to_byte: z.number().int().min(0),
  anchor: z.string(),
  /** Each entry `[id, bytes, ...marks]`, checked by `isIndexEntry` as the records are laid out (`z.array` would visit each entry once more). */
  index: z.custom<unknown[]>((index) => Array.isArray(index)),
});

type IndexEntry = [id: string, bytes: number, ...marks: string[]];

/** Checked by hand, as format 1's entries were: a schema per entry cost more than the parse. */
function isIndexEntry(entry: unknown): entry is IndexEntry {
  if (!Array.isArray(entry) || entry.length < 2 || typeof entry[0] !== "string") return false;
  for (let at = 2; at < entry.length; at += 1) if (typeof entry[at] !== "string") return false;
  const bytes: unknown = entry[1];
  // The shortest record, `{}`, has two bytes.
  return Number.isInteger(bytes) && (bytes as number) >= 2;
}

function isFormatOneEntry(entry: unknown): entry is { record: unknown; mark?: string } {
  if (typeof entry !== "object" || entry === null || !("record" in entry)) return false;
  const { mark } = entry as { mark?: unknown };
  return mark === undefined || typeof mark === "string";
}

/**
 * A view file whose digest matched, with the byte of the log it was folded to and the anchor; its
 * index is parsed and laid out against its records by `decode` (undefined when they do not match).
 */
export interface CheckedViewFile {
  folded_to_byte: number;
  anchor: string;
  format: 1 | 2;
  /** The digest the file names, which its bytes matched. */
  digest: string;
  decode(): ViewFile | undefined;
}

/** Format 2's head as `encodeViewFile` writes it, up to its index: read without parsing the index. */
const FORMAT_TWO_HEAD = /^\{"schema_version":2,"folded_to_byte":(\d{1,15}),"anchor":"([0-9a-f]*)","index":\[/;

/** What a format 2 view file's head says, as its first bytes hold it: not checked (its digest is of the whole file). */
export interface ViewHead {
  digest: string;
  folded_to_byte: number;
  anchor: string;
}

/** How many of a view file's first bytes hold its head: the digest, the format, the byte folded to and the anchor (64 hex digits or none). */
export const VIEW_HEAD_BYTES = VIEW_AT + 256;

/**
 * Issue 32: the head of a format 2 view file from its first `VIEW_HEAD_BYTES`, without reading the
 * rest: the byte of the log it says it was folded to and its anchor, to tell whether it is current
 * before reading it. Undefined for any other format or a head cut short. Nothing here is checked:
 * the file's digest is checked when it is read whole (`checkViewFile`), and must then be this one.
 */
export function readViewHead(first: Buffer): ViewHead | undefined {
  if (first.length <= VIEW_AT || !first.subarray(0, PREFIX_BYTES.length).equals(PREFIX_BYTES)) return undefined;
  const digest = first.toString("latin1", DIGEST_PREFIX.length, DIGEST_PREFIX.length + 64);
  const head = FORMAT_TWO_HEAD.exec(first.toString("latin1", VIEW_AT));
  if (!/^[0-9a-f]{64}$/.test(digest) || head === null) return undefined;
  return { digest, folded_to_byte: Number(head[1]), anchor: head[2] ?? "" };
}

/**
 * Issue 32: the view file's digest checked, and the byte and anchor read from the head, without
 * parsing its index (that is `decode`, left to the caller: start-up leaves it until the records
 * are first needed). Undefined when the file is cut, changed, or of another format.
 */
export function checkViewFile(bytes: Buffer): CheckedViewFile | undefined {
  let end = bytes.length;
  while (end > 0 && TRAILING_SPACE.has(bytes[end - 1]!)) end -= 1;
  if (end <= VIEW_AT || !bytes.subarray(0, PREFIX_BYTES.length).equals(PREFIX_BYTES) || bytes[end - 1] !== CLOSE_BRACE) return undefined;
  const body = bytes.subarray(VIEW_AT, end - 1);
  const digest = bytes.toString("latin1", DIGEST_PREFIX.length, DIGEST_PREFIX.length + 64);
  if (digest !== sha256(body)) return undefined;
  const headEnd = body.indexOf(NEWLINE);
  const decode = () => {
    try {
      return headEnd === -1 ? decodeFormatOne(body) : decodeFormatTwo(body, headEnd);
    } catch {
      // Not JSON: the view is ignored and the log folded (a derived cache, never the source of truth).
      return undefined;
    }
  };
  const head = headEnd === -1 ? null : FORMAT_TWO_HEAD.exec(body.toString("latin1", 0, Math.min(headEnd, 256)));
  if (head !== null) return { folded_to_byte: Number(head[1]), anchor: head[2] ?? "", format: 2, digest, decode };
  // Format 1, or a head written otherwise: decoded now.
  const file = decode();
  return file === undefined ? undefined : { folded_to_byte: file.folded_to_byte, anchor: file.anchor, format: file.format, digest, decode: () => file };
}

function decodeFormatOne(body: Buffer): ViewFile | undefined {
  const view = FormatOneSchema.safeParse(JSON.parse(body.toString("utf8")));
  if (!view.success) return undefined;
  const records = new Map<string, KeptRecord>();
  const marks = new Map<string, readonly string[]>();
  for (const [id, entry] of Object.entries(view.data.entries)) {
    if (!isFormatOneEntry(entry)) return undefined;
    records.set(id, { value: entry.record });
    if (entry.mark !== undefined) marks.set(id, [entry.mark]);
  }
  return { folded_to_byte: view.data.folded_to_byte, anchor: view.data.anchor, records, marks, format: 1 };
}

/** Format 2: the first line's index, then each record's bytes where the index puts them (kept as offsets into the file, parsed when first read). */
function decodeFormatTwo(body: Buffer, headEnd: number): ViewFile | undefined {
  const headText = headEnd - RECORDS_OPEN.length;
  if (headText <= 0 || !body.subarray(headText, headEnd).equals(RECORDS_OPEN)) return undefined;
  const head = FormatTwoHeadSchema.safeParse(JSON.parse(body.toString("utf8", 0, headText)));
  if (!head.success) return undefined;
  const records = new Map<string, KeptRecord>();
  const marks = new Map<string, readonly string[]>();
  const { index } = head.data;
  let at = headEnd + 1;
  for (let number = 0; number < index.length; number += 1) {
    const entry = index[number];
    if (!isIndexEntry(entry)) return undefined;
    const [id, length] = entry;
    const end = at + length;
    if (end > body.length || body[at] !== OPEN_BRACE || body[end - 1] !== CLOSE_BRACE) return undefined;
    records.set(id, { file: body, start: at, end });
    if (entry.length > 2) marks.set(id, entry.slice(2) as string[]);
    at = end;
    // Records are separated by ",\n", and the last one ends its line.
    const last = number === index.length - 1;
    if (last ? body[at] !== NEWLINE : body[at] !== COMMA || body[at + 1] !== NEWLINE) return undefined;
    at += last ? 1 : 2;
  }
  // An id indexed twice leaves fewer records than entries.
  if (records.size !== index.length || at !== body.length - 1 || body[at] !== CLOSE_BRACKET) return undefined;
  return { folded_to_byte: head.data.folded_to_byte, anchor: head.data.anchor, records, marks, format: 2 };
}

/** The view file's bytes in format 2: a record still kept as bytes is copied as it is, a parsed one written compact. */
export function encodeViewFile(file: Omit<ViewFile, "format">): Buffer {
  const texts: Buffer[] = [];
  const index: IndexEntry[] = [];
  for (const [id, kept] of file.records) {
    const text = "value" in kept ? Buffer.from(JSON.stringify(kept.value)) : kept.file.subarray(kept.start, kept.end);
    texts.push(text);
    index.push([id, text.length, ...(file.marks.get(id) ?? [])]);
  }
  const head = JSON.stringify({ schema_version: 2, folded_to_byte: file.folded_to_byte, anchor: file.anchor, index });
  const parts: Buffer[] = [Buffer.from(`${head},"records":[\n`)];
  const separator = Buffer.from(",\n");
  texts.forEach((text, number) => parts.push(...(number === 0 ? [text] : [separator, text])));
  parts.push(Buffer.from(texts.length === 0 ? "]" : "\n]"));
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from(`${DIGEST_PREFIX}${sha256(body)}","view":`), body, Buffer.from("}\n")]);
}

import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";

/**
 * Issue 32: current view files (agent/memory/log-view-file.ts) written by hand, for tests that need
 * one spoiled or of an older format: the view's text with its digest, as the layout documents it
 * (of what follows `"view":` up to the last `}`).
 */
export function withDigest(body: string): string {
  return `{"sha256":"${createHash("sha256").update(body).digest("hex")}","view":${body}}\n`;
}

interface FormatTwo {
  view: { schema_version: 2; folded_to_byte: number; anchor: string; index: Array<[string, number, ...string[]]> };
  records: unknown[];
}

/** Rewrites a view file of format 2 with each record's text passed through `edit`, its index and digest made to match. */
export async function editViewRecords(file: string, edit: (id: string, text: string) => string): Promise<void> {
  const kept = JSON.parse(await readFile(file, "utf8")) as FormatTwo;
  const texts = kept.view.index.map(([id], number) => edit(id, JSON.stringify(kept.records[number])));
  const index = kept.view.index.map(([id, , ...marks], number) => [id, Buffer.byteLength(texts[number] ?? ""), ...marks]);
  const head = JSON.stringify({ ...kept.view, index });
  await writeFile(file, withDigest(`${head},"records":[\n${texts.join(",\n")}${texts.length === 0 ? "" : "\n"}]`));
}

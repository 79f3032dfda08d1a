import { PAGE_SNAPSHOT_MAX_BYTES, SNAPSHOT_REF_PREFIX, canonicalJson, type PageSnapshot } from "../../../shared/observation/page-snapshot";
import { sha256Hex } from "../privacy/field-masking";

/** A snapshot's JSON: its canonical form, written directly; its 32 KB limit; its name (the SHA-256 of that JSON). */

export interface TakenSnapshot {
  snapshot: PageSnapshot;
  /** `snapshot:<sha256>`; undefined where crypto.subtle is missing (an insecure context). */
  ref: string | undefined;
  sha256: string | undefined;
}

/**
 * `canonicalJson(snapshot)` (keys sorted at every level, absent optional keys left out), written
 * directly for the snapshot's fixed shape: the generic one sorts the keys of every object again.
 * A test holds the two equal.
 */
export function snapshotJson(snapshot: PageSnapshot): string {
  const text = JSON.stringify;
  const optionalKey = (key: string, value: string | undefined): string => (value === undefined ? "" : `"${key}":${text(value)},`);
  const strings = (list: readonly string[]): string => `[${list.map((item) => text(item)).join(",")}]`;
  const dialogs = snapshot.dialogs.map((dialog) => `{${optionalKey("name", dialog.name)}"open":${dialog.open}}`);
  const forms = snapshot.forms.map((form) => {
    const fields = form.fields.map((field) => `{${optionalKey("label", field.label)}"required":${field.required},"type":${text(field.type)}}`);
    return `{"fields":[${fields.join(",")}]${form.name === undefined ? "" : `,"name":${text(form.name)}`}}`;
  });
  const headings = snapshot.headings.map((heading) => `{"level":${text(heading.level)},"text":${text(heading.text)}}`);
  const landmarks = snapshot.landmarks.map((landmark) => `{${optionalKey("name", landmark.name)}"role":${text(landmark.role)}}`);
  // Issue #14's optional lists, in their sorted places.
  const lists = snapshot.lists?.map((list) => `{"checked":${list.checked},"items":${list.items},${optionalKey("name", list.name)}"role":${text(list.role)}}`);
  const toggles = snapshot.toggles?.map(
    (toggle) =>
      `{${optionalKey("name", toggle.name)}"role":${text(toggle.role)},${toggle.row === undefined ? "" : `"row":${toggle.row},`}${toggle.row_text === undefined ? "" : `"row_text":${text(toggle.row_text)},`}"state":${text(toggle.state)}}`,
  );
  const after = (key: string, value: string | undefined) => (value === undefined ? "" : `"${key}":${value},`);
  return (
    `{"buttons":${strings(snapshot.buttons)},"dialogs":[${dialogs.join(",")}],"forms":[${forms.join(",")}],"headings":[${headings.join(",")}],` +
    `${after("hover_revealed", snapshot.hover_revealed && strings(snapshot.hover_revealed))}` +
    `"landmarks":[${landmarks.join(",")}],"links":${strings(snapshot.links)},${after("lists", lists && `[${lists.join(",")}]`)}"schema_version":${text(snapshot.schema_version)},` +
    `"status_messages":${strings(snapshot.status_messages)},${after("texts", snapshot.texts && strings(snapshot.texts))}"title":${text(snapshot.title)},` +
    `${after("toggles", toggles && `[${toggles.join(",")}]`)}"url":${text(snapshot.url)}}`
  );
}

/**
 * Names a snapshot: SHA-256 over its `canonicalJson` (keys sorted), the form the agent checks and
 * stores it in.
 */
export async function nameSnapshot(snapshot: PageSnapshot, json: string = canonicalJson(snapshot)): Promise<TakenSnapshot> {
  const sha256 = await sha256Hex(json);
  return { snapshot, sha256, ref: sha256 === undefined ? undefined : `${SNAPSHOT_REF_PREFIX}${sha256}` };
}

/** Every piece of page text in a snapshot, one per line: what a new typed value is looked for in before the snapshot is reused. */
export function snapshotText(snapshot: PageSnapshot): string {
  // The URL is left out: it is masked, not scrubbed.
  const lines: string[] = [snapshot.title];
  for (const heading of snapshot.headings) lines.push(heading.text);
  for (const landmark of snapshot.landmarks) lines.push(landmark.name ?? "");
  for (const dialog of snapshot.dialogs) lines.push(dialog.name ?? "");
  for (const form of snapshot.forms) {
    lines.push(form.name ?? "");
    for (const field of form.fields) lines.push(field.label ?? "");
  }
  lines.push(...snapshot.buttons, ...snapshot.links, ...snapshot.status_messages);
  for (const list of snapshot.lists ?? []) lines.push(list.name ?? "");
  for (const toggle of snapshot.toggles ?? []) lines.push(toggle.name ?? "", toggle.row_text ?? "");
  lines.push(...(snapshot.texts ?? []), ...(snapshot.hover_revealed ?? []));
  return lines.join("\n");
}

/** UTF-8 length as TextEncoder would encode it (a lone surrogate becomes U+FFFD), without encoding. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}

/** Over 32 KB in UTF-8 (a UTF-16 unit takes at most 3 bytes: a short text is not measured). */
function tooLarge(json: string): boolean {
  return json.length * 3 > PAGE_SNAPSHOT_MAX_BYTES && utf8Length(json) > PAGE_SNAPSHOT_MAX_BYTES;
}

/** Halves the longest list until the canonical JSON fits in 32 KB (links and buttons go first). */
export function fitToLimit(snapshot: PageSnapshot): { snapshot: PageSnapshot; json: string } {
  let current = snapshot;
  let json = snapshotJson(current);
  // Issue #14's extras go first.
  if (tooLarge(json)) {
    const { lists: _lists, toggles: _toggles, texts: _texts, hover_revealed: _hover, ...rest } = current;
    current = rest;
    json = snapshotJson(current);
  }
  for (let round = 0; round < 64 && tooLarge(json); round += 1) {
    const lists = ["links", "buttons", "headings", "landmarks", "status_messages", "dialogs"] as const;
    const longest = lists.reduce((best, key) => (current[key].length > current[best].length ? key : best), lists[0]);
    const fieldCount = current.forms.reduce((sum, form) => sum + form.fields.length, 0);
    if (fieldCount > current[longest].length) {
      current = {
        ...current,
        forms: current.forms
          .slice(0, Math.max(1, Math.ceil(current.forms.length / 2)))
          .map((form) => ({ ...form, fields: form.fields.slice(0, Math.ceil(form.fields.length / 2)) })),
      };
    } else if (current[longest].length > 0) {
      current = { ...current, [longest]: current[longest].slice(0, Math.floor(current[longest].length / 2)) };
    } else {
      current = { ...current, forms: [], title: current.title.slice(0, 80) };
    }
    json = snapshotJson(current);
  }
  return { snapshot: current, json };
}

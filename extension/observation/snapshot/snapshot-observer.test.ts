import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PageSnapshotSchema, canonicalJson, type PageSnapshot } from "../../../shared/observation/page-snapshot";
import { snapshotJson, utf8Length } from "./snapshot-json";

/**
 * A snapshot is named by the SHA-256 of its canonical JSON, which the agent recomputes with the
 * shared `canonicalJson`: the capture's faster writer must give the very same text, and its size
 * check the very bytes TextEncoder would produce.
 */

const text = fc.string({ maxLength: 40, unit: fc.constantFrom("a", "Z", " ", '"', "\\", "\n", "é", "•", "😀", "\u2028", "<") });
const optionalText = fc.option(text, { nil: undefined });

const snapshotArbitrary: fc.Arbitrary<PageSnapshot> = fc.record(
  {
    url: text,
    title: text,
    headings: fc.array(fc.record({ level: fc.integer({ min: 1, max: 6 }), text }), { maxLength: 4 }),
    landmarks: fc.array(fc.record({ role: text, name: optionalText }, { requiredKeys: ["role"] }), { maxLength: 4 }),
    dialogs: fc.array(fc.record({ name: optionalText, open: fc.boolean() }, { requiredKeys: ["open"] }), { maxLength: 3 }),
    forms: fc.array(
      fc.record(
        {
          name: optionalText,
          fields: fc.array(fc.record({ label: optionalText, type: text, required: fc.boolean() }, { requiredKeys: ["type", "required"] }), { maxLength: 4 }),
        },
        { requiredKeys: ["fields"] },
      ),
      { maxLength: 3 },
    ),
    buttons: fc.array(text, { maxLength: 5 }),
    links: fc.array(text, { maxLength: 5 }),
    status_messages: fc.array(text, { maxLength: 3 }),
    // Issue #14's optional parts, present or absent.
    lists: fc.option(
      fc.array(
        fc.record({ name: optionalText, role: text, items: fc.nat({ max: 50 }), checked: fc.nat({ max: 50 }) }, { requiredKeys: ["role", "items", "checked"] }),
        { maxLength: 3 },
      ),
      { nil: undefined },
    ),
    toggles: fc.option(
      fc.array(
        fc.record(
          { name: optionalText, role: text, state: text, row: fc.option(fc.integer({ min: 1, max: 99 }), { nil: undefined }) },
          { requiredKeys: ["role", "state"] },
        ),
        { maxLength: 3 },
      ),
      { nil: undefined },
    ),
    texts: fc.option(fc.array(text, { maxLength: 3 }), { nil: undefined }),
    hover_revealed: fc.option(fc.array(text, { maxLength: 3 }), { nil: undefined }),
    schema_version: fc.constant(1 as const),
  },
  { requiredKeys: ["url", "title", "headings", "landmarks", "dialogs", "forms", "buttons", "links", "status_messages", "schema_version"] },
);

describe("snapshot JSON", () => {
  it("is exactly the shared canonical JSON of the snapshot, whatever it holds", () => {
    fc.assert(
      fc.property(snapshotArbitrary, (snapshot) => {
        expect(PageSnapshotSchema.safeParse(snapshot).success).toBe(true);
        expect(snapshotJson(snapshot)).toBe(canonicalJson(snapshot));
      }),
      { numRuns: 500 },
    );
  });

  it("measures UTF-8 bytes as TextEncoder writes them, lone surrogates included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: fc.constantFrom("\ud800", "\udc00", "a", "é", "😀") }), (first, second) => {
        const value = first + second;
        expect(utf8Length(value)).toBe(new TextEncoder().encode(value).length);
      }),
    );
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MIN_SCRUB_LENGTH, SCRUBBED, createNeedleCache, createTypedValueScrubber, needlesOf } from "./typed-value-scrubber";

const CANARY = "Zebra Quill 42";

describe("the typed-value scrubbing rule", () => {
  it("cuts a value out whatever its case", () => {
    const scrubber = createTypedValueScrubber([CANARY]);
    for (const text of [`Hi ${CANARY}!`, `Hi ${CANARY.toLowerCase()}!`, `Hi ${CANARY.toUpperCase()}!`]) {
      expect(scrubber.scrub(text)).toBe(`Hi ${SCRUBBED}!`);
      expect(scrubber.contains(text)).toBe(true);
    }
  });

  it("matches any run of whitespace between the words of a value, typed or shown", () => {
    const scrubber = createTypedValueScrubber(["Zebra   Quill\t42"]);
    expect(scrubber.scrub("Zebra Quill 42")).toBe(SCRUBBED);
    expect(scrubber.scrub("Zebra\n\nQuill\u00a042")).toBe(SCRUBBED);
    expect(scrubber.scrub("  Zebra Quill 42  ")).toBe(`  ${SCRUBBED}  `);
  });

  it("finds a multi-line value whole and each of its lines on its own", () => {
    const scrubber = createTypedValueScrubber(["12 Harbour Lane\nFlat 3b Northgate"]);
    expect(scrubber.scrub("Ship to: 12 Harbour Lane Flat 3b Northgate")).toBe(`Ship to: ${SCRUBBED}`);
    expect(scrubber.scrub("Line two was Flat 3b Northgate.")).toBe(`Line two was ${SCRUBBED}.`);
    expect(scrubber.scrub("Street: 12 HARBOUR LANE")).toBe(`Street: ${SCRUBBED}`);
  });

  it("finds a value percent-encoded, form-encoded and HTML-escaped", () => {
    const scrubber = createTypedValueScrubber(["Tom & Jerry's café"]);
    for (const text of [
      "/search/Tom%20%26%20Jerry's%20caf%C3%A9",
      "?q=Tom+%26+Jerry%27s+caf%c3%a9",
      "#search/tom%20%26%20jerry%27s%20caf%C3%A9",
      "<b>Tom &amp; Jerry&#39;s café</b>",
      "Tom &amp; Jerry&apos;s café",
    ]) {
      expect(scrubber.contains(text), text).toBe(true);
      expect(scrubber.scrub(text, "*")).not.toMatch(/jerry/i);
    }
  });

  it("cuts the start of a value left at the end of a clipped text", () => {
    const scrubber = createTypedValueScrubber([CANARY]);
    expect(scrubber.scrub("Results for Zebra Qu…")).toBe(`Results for ${SCRUBBED}…`);
    expect(scrubber.contains("Results for zebra qu…")).toBe(true);
    // A text that was not clipped keeps an ordinary word that starts like a value.
    expect(scrubber.scrub("Zebra crossing")).toBe("Zebra crossing");
  });

  it("leaves values shorter than the minimum alone, so a short word does not blank a page", () => {
    const scrubber = createTypedValueScrubber(["ab", " x ", ""]);
    expect(scrubber.size).toBe(0);
    expect(scrubber.scrub("abc x")).toBe("abc x");
    expect(needlesOf(["abc"])).toEqual(["abc"]);
    expect(MIN_SCRUB_LENGTH).toBe(3);
  });

  it("cuts a longer value whole before a shorter one inside it", () => {
    const scrubber = createTypedValueScrubber(["Quill", "Zebra Quill 42"]);
    expect(scrubber.scrub("a Zebra Quill 42 b Quill")).toBe(`a ${SCRUBBED} b ${SCRUBBED}`);
  });

  it("treats regular-expression characters in a value as plain text", () => {
    const scrubber = createTypedValueScrubber(["a+b (c)? [d] $5 / \\e"]);
    expect(scrubber.scrub("x a+b (c)? [d] $5 / \\e y")).toBe(`x ${SCRUBBED} y`);
    expect(scrubber.scrub("aab c d 5 e")).toBe("aab c d 5 e");
  });

  it("never leaves a value in any text it scrubbed, in any case or spacing (property)", () => {
    const word = fc.stringMatching(/^[A-Za-z0-9éß&'%+<>"]{1,8}$/);
    const value = fc
      .array(word, { minLength: 1, maxLength: 4 })
      .map((words) => words.join(" "))
      .filter((text) => text.length >= MIN_SCRUB_LENGTH);
    const gap = fc.constantFrom(" ", "  ", "\t", "\n", "\u00a0", " \n ");
    fc.assert(
      fc.property(value, fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), gap, fc.boolean(), (typed, before, after, space, upper) => {
        const shown = typed.split(" ").join(space);
        const text = `${before}${upper ? shown.toUpperCase() : shown.toLowerCase()}${after}`;
        const scrubber = createTypedValueScrubber([typed]);
        const scrubbed = scrubber.scrub(text);
        expect(scrubber.contains(text)).toBe(true);
        expect(scrubbed.toLowerCase().replace(/\s+/g, " ")).not.toContain(typed.toLowerCase());
        expect(scrubber.contains(scrubbed)).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it("finds a value wherever encodeURIComponent or HTML escaping put it (property)", () => {
    const value = fc
      .string({ minLength: MIN_SCRUB_LENGTH, maxLength: 16 })
      .filter((text) => text.trim().length >= MIN_SCRUB_LENGTH && !/[\ud800-\udfff]/.test(text));
    fc.assert(
      fc.property(value, (typed) => {
        const scrubber = createTypedValueScrubber([typed]);
        const words = typed.trim().split(/\s+/);
        expect(scrubber.contains(`/p/${words.map(encodeURIComponent).join("%20")}/x`)).toBe(true);
        const html = words.join(" ").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
        expect(scrubber.contains(`<p>${html}</p>`)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  describe("a scrubber built on the one before it (what it found clean is checked again, never trusted)", () => {
    const texts = ["Results for Zebra Quill 42", "results for zebra qu…", "Ship to Zebra%20Quill%2042", "Nothing typed here", "Add", "Zebra crossing"];

    it("cuts a value typed after the text was found clean, in every form", () => {
      const cache = createNeedleCache();
      const first = createTypedValueScrubber(["Other Value"], cache);
      for (const text of texts) first.scrub(text);
      const second = createTypedValueScrubber(["Other Value", CANARY], cache, first);
      expect(second.scrub("Results for Zebra Quill 42")).toBe(`Results for ${SCRUBBED}`);
      expect(second.scrub("results for zebra qu…")).toBe(`results for ${SCRUBBED}…`);
      expect(second.contains("Ship to Zebra%20Quill%2042")).toBe(true);
      expect(second.scrub("Nothing typed here")).toBe("Nothing typed here");
    });

    it("cuts a value that left the set and came back (a field cleared, then typed into again)", () => {
      const cache = createNeedleCache();
      const withIt = createTypedValueScrubber([CANARY], cache);
      expect(withIt.scrub("Results for Zebra Quill 42")).toBe(`Results for ${SCRUBBED}`);
      const without = createTypedValueScrubber(["Other Value"], cache, withIt);
      expect(without.scrub("Results for Zebra Quill 42")).toBe("Results for Zebra Quill 42");
      const again = createTypedValueScrubber(["Other Value", CANARY], cache, without);
      expect(again.scrub("Results for Zebra Quill 42")).toBe(`Results for ${SCRUBBED}`);
      expect(again.contains("Results for zebra quill 42")).toBe(true);
    });

    it("answers as a scrubber built afresh, along any sequence of value sets (property)", () => {
      const word = fc.constantFrom("Zebra", "Quill", "42", "café", "Tom", "&", "Jerry's", "Add", "shelf", "Oak");
      const value = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(" "));
      const valueSets = fc.array(fc.array(value, { maxLength: 4 }), { minLength: 2, maxLength: 6 });
      const text = fc
        .array(fc.oneof(word, fc.constantFrom(" ", "%20", "+", "&amp;", "…", "/", "Zebr", "Qui")), { maxLength: 10 })
        .map((parts) => parts.join(""));
      fc.assert(
        fc.property(valueSets, fc.array(text, { minLength: 1, maxLength: 12 }), (sets, shown) => {
          const cache = createNeedleCache();
          let chained: ReturnType<typeof createTypedValueScrubber> | undefined;
          for (const values of sets) {
            chained = createTypedValueScrubber(values, cache, chained);
            const fresh = createTypedValueScrubber(values);
            for (const item of shown) {
              expect(chained.scrub(item)).toBe(fresh.scrub(item));
              expect(chained.contains(item)).toBe(fresh.contains(item));
            }
          }
        }),
        { numRuns: 300 },
      );
    });
  });
});

import { describe, expect, it } from "vitest";
import { isAlwaysSecretField, isMaskedUrl, lengthClass, looksLikeCardNumber, maskUrl } from "./masking-rules";
import { createTypedValueScrubber } from "./typed-value-scrubber";

describe("masking rules", () => {
  it("keeps only a length class", () => {
    expect([0, 1, 8, 9, 40, 41].map(lengthClass)).toEqual(["empty", "short", "short", "medium", "medium", "long"]);
  });

  it.each([
    [{ inputType: "password" }],
    [{ autocomplete: "one-time-code" }],
    [{ autocomplete: "cc-number" }],
    [{ autocomplete: "section-billing cc-csc" }],
    [{ name: "api_key" }],
    [{ id: "otp-input" }],
    [{ label: "Card number" }],
    [{ label: "Security code" }],
    [{ label: "PIN" }],
    [{ name: "user_password2" }],
    [{ label: "Passwort" }],
  ])("treats %j as always secret", (hints) => {
    expect(isAlwaysSecretField(hints)).toBe(true);
  });

  it.each([[{ inputType: "email", name: "email", label: "Email" }], [{ label: "Spinner speed" }], [{ name: "company" }], [{ label: "Shipping notes" }]])(
    "does not treat %j as a secret by itself",
    (hints) => {
      expect(isAlwaysSecretField(hints)).toBe(false);
    },
  );

  it("spots card-number-like values", () => {
    expect(looksLikeCardNumber("4111 1111 1111 1111")).toBe(true);
    expect(looksLikeCardNumber("4111-1111-1111-1111")).toBe(true);
    expect(looksLikeCardNumber("12345")).toBe(false);
  });

  it("masks query values and fragment pairs, keeps keys, drops credentials", () => {
    expect(maskUrl("https://u:p@shop.example.com/search?q=red+shoes&page=2#token=abc")).toBe(
      "https://shop.example.com/search?q=*&page=*#token=*",
    );
    expect(maskUrl("https://shop.example.com/cart#section")).toBe("https://shop.example.com/cart#section");
    expect(maskUrl("not a url")).toBe("");
  });

  it("recognises a masked URL and an unmasked one", () => {
    expect(isMaskedUrl("https://shop.example.com/search?q=*")).toBe(true);
    expect(isMaskedUrl("https://shop.example.com/search?q=secret")).toBe(false);
  });

  it("masks the query of a fragment route, and with a scrubber cuts typed values out of the path and the fragment", () => {
    expect(maskUrl("https://notes.example.com/app#/search?q=secret&sort=new")).toBe("https://notes.example.com/app#/search?q=*&sort=*");
    const scrubber = createTypedValueScrubber(["Red Shoes"]);
    expect(maskUrl("https://shop.example.com/search/red%20shoes/page/2#search/Red%20Shoes", scrubber)).toBe("https://shop.example.com/search/*/page/2#search/*");
    expect(maskUrl("https://shop.example.com/tag/RED+SHOES", scrubber)).toBe("https://shop.example.com/tag/*");
  });

  it("refuses at the agent a fragment route whose query still carries a value (not only the page's own query)", () => {
    expect(isMaskedUrl("https://notes.example.com/app#/search?q=secret")).toBe(false);
    expect(isMaskedUrl("https://notes.example.com/app#/search?q=*")).toBe(true);
    expect(isMaskedUrl("https://notes.example.com/app#/todos/active")).toBe(true);
    expect(isMaskedUrl("https://user:pw@notes.example.com/")).toBe(false);
  });
});

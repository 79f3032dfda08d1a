import { describe, expect, it } from "vitest";
import { isAlwaysSecretField, lengthClass, looksLikeCardNumber } from "./masking-rules";

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
});

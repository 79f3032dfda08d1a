import { createHmac, createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalValue, hmacSha256, sha256, valueRef } from "./value-ref";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const utf8 = (text: string) => new TextEncoder().encode(text);

describe("value references", () => {
  it("computes SHA-256 and HMAC-SHA-256 as node's crypto does, across block boundaries", () => {
    for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 120, 200, 1000]) {
      const message = utf8("é".repeat(length).slice(0, length) + "x".repeat(length % 7));
      expect(hex(sha256(message))).toBe(createHash("sha256").update(message).digest("hex"));
      for (const key of ["k", "a".repeat(64), "b".repeat(100)]) {
        expect(hex(hmacSha256(utf8(key), message))).toBe(createHmac("sha256", utf8(key)).update(message).digest("hex"));
      }
    }
  });

  it("names a value the same whatever its case and spacing, and differently under another key", () => {
    expect(canonicalValue("  Meeting \u00a0 NOTES ")).toBe("meeting notes");
    const ref = valueRef("session-key-0123456789", "Meeting notes");
    expect(ref).toMatch(/^[0-9a-f]{12}$/);
    expect(valueRef("session-key-0123456789", " meeting   NOTES")).toBe(ref);
    expect(valueRef("another-key-0123456789", "Meeting notes")).not.toBe(ref);
    expect(valueRef("session-key-0123456789", "Meeting notes 2")).not.toBe(ref);
    expect(valueRef("session-key-0123456789", "   ")).toBeUndefined();
  });
});

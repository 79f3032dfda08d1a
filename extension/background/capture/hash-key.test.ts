import { describe, expect, it } from "vitest";
import { newHashKey } from "./hash-key";

describe("newHashKey", () => {
  it("makes 32 random bytes into a 43-character base64url key", () => {
    const key = newHashKey((bytes) => bytes.fill(0xfb));
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newHashKey((bytes) => bytes.fill(1))).not.toBe(key);
  });
});

import { describe, expect, it } from "vitest";
import { parseAllowListEntry, urlMatchesAllowList } from "./site-allowlist";

describe("site allow-list", () => {
  it.each([
    ["https://shop.example.com/cart", ["shop.example.com"], true],
    ["http://shop.example.com/cart", ["shop.example.com"], true],
    ["https://evil.example.com/", ["shop.example.com"], false],
    ["https://shop.example.com.evil.net/", ["shop.example.com"], false],
    ["https://a.b.example.com/", ["*.example.com"], true],
    ["https://example.com/", ["*.example.com"], true],
    ["https://notexample.com/", ["*.example.com"], false],
    ["http://127.0.0.1:8123/form", ["http://127.0.0.1:8123"], true],
    ["http://127.0.0.1:9999/form", ["http://127.0.0.1:8123"], false],
    ["https://127.0.0.1:8123/form", ["http://127.0.0.1:8123"], false],
    ["http://shop.example.com:8080/", ["shop.example.com"], false],
    ["file:///etc/passwd", ["shop.example.com"], false],
    ["not a url", ["shop.example.com"], false],
  ])("%s against %j → %s", (url, entries, expected) => {
    expect(urlMatchesAllowList(url, entries)).toBe(expected);
  });

  it("refuses entries that are not hosts or origins", () => {
    expect(parseAllowListEntry("https://shop.example.com/path")).toBeUndefined();
    expect(parseAllowListEntry("javascript:alert(1)")).toBeUndefined();
    expect(parseAllowListEntry("<all_urls>")).toBeUndefined();
    expect(parseAllowListEntry("*.example.com")).toMatchObject({ wildcard: true, host: "example.com" });
  });
});

import { describe, expect, it } from "vitest";
import { grantedOriginPatterns, originPatternsForAllowList, releaseOriginPatterns } from "./site-permissions";

describe("originPatternsForAllowList", () => {
  it("asks for both schemes of a bare host, on every path", () => {
    expect(originPatternsForAllowList(["shop.example.com"])).toEqual(["https://shop.example.com/*", "http://shop.example.com/*"]);
  });

  it("keeps the scheme and port of an origin", () => {
    expect(originPatternsForAllowList(["http://127.0.0.1:8123"])).toEqual(["http://127.0.0.1:8123/*"]);
    expect(originPatternsForAllowList(["https://app.example.com/"])).toEqual(["https://app.example.com/*"]);
  });

  it("turns a wildcard host into Chrome's subdomain pattern", () => {
    expect(originPatternsForAllowList(["*.example.com"])).toEqual(["https://*.example.com/*", "http://*.example.com/*"]);
  });

  it("gives nothing for entries that are not sites, so a typo never widens access", () => {
    expect(originPatternsForAllowList(["<all_urls>", "*", "file:///etc", "not a site", "ftp://x.example", ""])).toEqual([]);
  });

  it("never asks twice for the same pattern", () => {
    expect(originPatternsForAllowList(["Shop.Example.com", "shop.example.com", "https://shop.example.com"])).toEqual([
      "https://shop.example.com/*",
      "http://shop.example.com/*",
    ]);
  });
});

describe("grantedOriginPatterns", () => {
  it("keeps only the patterns Chrome says are granted, one refused site not costing the others", async () => {
    const granted = new Set(["http://127.0.0.1:8123/*"]);
    const result = await grantedOriginPatterns(["https://shop.example.com/*", "http://127.0.0.1:8123/*"], async ([origin]) => granted.has(origin ?? ""));
    expect(result).toEqual(["http://127.0.0.1:8123/*"]);
  });
});

describe("releaseOriginPatterns", () => {
  it("gives back every pattern it can, even when Chrome refuses a required one", async () => {
    const removed: string[] = [];
    await releaseOriginPatterns(["http://127.0.0.1:8123/*", "https://shop.example.com/*"], async ([origin]) => {
      if (origin?.startsWith("http://127.0.0.1")) throw new Error("You cannot remove required permissions.");
      removed.push(origin ?? "");
      return true;
    });
    expect(removed).toEqual(["https://shop.example.com/*"]);
  });
});

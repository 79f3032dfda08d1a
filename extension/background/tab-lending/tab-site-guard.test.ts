import { describe, expect, it } from "vitest";
import { createTabSiteGuard, matches } from "./tab-site-guard";

describe("the lent tab's site guard", () => {
  it("reads CDP Fetch patterns: * and ?, backslash escapes, resource type and stage", () => {
    expect(matches({ urlPattern: "*" }, "https://shop.example.com/a?b=1", "Script", "Request")).toBe(true);
    expect(matches({ urlPattern: "https://shop.example.com/*" }, "https://shop.example.com/cart", "Document", "Request")).toBe(true);
    expect(matches({ urlPattern: "https://shop.example.com/*" }, "https://evil.example/shop.example.com/", "Document", "Request")).toBe(false);
    expect(matches({ urlPattern: "*.js?" }, "https://a.example/app.jsx", "Script", "Request")).toBe(true);
    expect(matches({ urlPattern: "*\\?x" }, "https://a.example/?x", "Document", "Request")).toBe(true);
    expect(matches({ urlPattern: "*\\?x" }, "https://a.example/ax", "Document", "Request")).toBe(false);
    expect(matches({ urlPattern: "*", resourceType: "XHR" }, "https://a.example/", "Document", "Request")).toBe(false);
    expect(matches({ urlPattern: "*" }, "https://a.example/", "Document", "Response")).toBe(false);
    expect(matches({ urlPattern: "*", requestStage: "Response" }, "https://a.example/", "Document", "Response")).toBe(true);
  });

  it("fails a main-frame document off the sites, hands the agent only what its own patterns asked for, and keeps pausing documents after the agent's Fetch.disable", async () => {
    const sent: Array<[string, Record<string, unknown> | undefined]> = [];
    const refused: string[] = [];
    const guard = createTabSiteGuard({
      send: async (method, params) => void sent.push([method, params]),
      allowed: (url) => url.startsWith("https://shop.example.com/"),
      isMainFrame: (frameId) => frameId === "main",
      onRefused: (url) => void refused.push(url),
    });
    await guard.start();
    expect(await guard.paused({ requestId: "1", frameId: "main", resourceType: "Document", request: { url: "https://evil.example/x" } })).toBe(false);
    expect(sent.at(-1)).toEqual(["Fetch.failRequest", { requestId: "1", errorReason: "BlockedByClient" }]);
    expect(refused).toEqual(["https://evil.example/x"]);
    // A page's own embed from elsewhere is not the tab going elsewhere: it goes on (the run's policy judges it).
    expect(await guard.paused({ requestId: "2", frameId: "child", resourceType: "Document", request: { url: "https://widgets.example/" } })).toBe(false);
    expect(sent.at(-1)).toEqual(["Fetch.continueRequest", { requestId: "2" }]);

    await guard.agentCommand("Fetch.enable", { patterns: [{ urlPattern: "*" }] });
    expect(sent.at(-1)).toEqual(["Fetch.enable", { patterns: [{ urlPattern: "*", resourceType: "Document", requestStage: "Request" }, { urlPattern: "*" }] }]);
    expect(await guard.paused({ requestId: "3", frameId: "main", resourceType: "Document", request: { url: "https://shop.example.com/next" } })).toBe(true);
    expect(await guard.paused({ requestId: "4", frameId: "main", resourceType: "Document", request: { url: "https://evil.example/y" } })).toBe(false);

    await guard.agentCommand("Fetch.disable", undefined);
    expect(sent.at(-1)).toEqual(["Fetch.enable", { patterns: [{ urlPattern: "*", resourceType: "Document", requestStage: "Request" }] }]);
    expect(await guard.paused({ requestId: "5", frameId: "main", resourceType: "Document", request: { url: "https://shop.example.com/" } })).toBe(false);
    expect(sent.at(-1)).toEqual(["Fetch.continueRequest", { requestId: "5" }]);
  });
});

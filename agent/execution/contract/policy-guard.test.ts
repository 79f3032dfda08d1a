import { describe, expect, it } from "vitest";
import { TestPolicySchema } from "../../../shared/learning/sessions/test-policy";
import { createPolicyWatch, describeReadsElsewhere, judgeRequest, refusal } from "./policy-guard";

const policy = TestPolicySchema.parse({
  policy_id: crypto.randomUUID(),
  mode: "live_read_safe_write",
  allowed_domains: ["shop.example.com"],
  forbid_destructive_writes: true,
  forbid_external_send: true,
  schema_version: 1,
});
const strict = TestPolicySchema.parse({ ...policy, mode: "controlled_live_test" });
const dryRun = TestPolicySchema.parse({ ...policy, mode: "dry_run_only" });
const page = "https://shop.example.com";
const cdnFont = new URL("https://fonts.cdn.example.net/inter.woff2");

describe("the network rule of a run", () => {
  it("refuses every off-site request under a test policy other than live_read_safe_write, dry runs included", () => {
    for (const mode of [strict, dryRun]) {
      expect(refusal(cdnFont, "GET", page, mode, { resourceType: "Font" })).toMatch(/not in the test policy's allowed_domains/);
      expect(refusal(cdnFont, "GET", page, mode, { resourceType: "Font", onBehalfOfPerson: false })).toBeDefined();
      expect(refusal(new URL("https://partner.example/embed"), "GET", page, mode, { resourceType: "Document", subframe: true })).toBeDefined();
    }
  });

  it("under live_read_safe_write lets the page's reads from other hosts through as reads to list, and refuses the rest", () => {
    for (const resourceType of ["Image", "Font", "Stylesheet", "Script", "Media", "XHR", "Fetch"]) {
      expect(judgeRequest(cdnFont, "GET", page, policy, { resourceType })).toEqual({ kind: "read_elsewhere" });
    }
    expect(judgeRequest(cdnFont, "HEAD", page, policy, { resourceType: "Fetch" })).toEqual({ kind: "read_elsewhere" });
    // An embed's page is a read; the tab's own page off the sites is a navigation, refused.
    expect(judgeRequest(new URL("https://partner.example/embed"), "GET", page, policy, { resourceType: "Document", subframe: true })).toEqual({
      kind: "read_elsewhere",
    });
    expect(judgeRequest(new URL("https://partner.example/"), "GET", page, policy, { resourceType: "Document" })).toMatchObject({ kind: "refused" });
    // Writes of any kind to another host, and a read of unknown kind.
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
      expect(judgeRequest(new URL("https://collector.example/x"), method, page, policy, { resourceType: "Fetch" })).toMatchObject({ kind: "refused" });
    }
    expect(judgeRequest(new URL("https://collector.example/beacon"), "POST", page, policy, { resourceType: "Ping" })).toMatchObject({ kind: "refused" });
    expect(judgeRequest(cdnFont, "GET", page, policy)).toMatchObject({ kind: "refused" });
    // The site's own requests are not reads from elsewhere.
    expect(judgeRequest(new URL("https://shop.example.com/logo.png"), "GET", page, policy, { resourceType: "Image" })).toEqual({ kind: "allowed" });
  });

  it("lists reads from other hosts by origin and kind, counted", () => {
    const watch = createPolicyWatch();
    watch.readElsewhere("https://cdn.example", "Image");
    watch.readElsewhere("https://cdn.example", "Image");
    watch.readElsewhere("https://fonts.example", "Font");
    expect(watch.readsElsewhere()).toEqual([
      { origin: "https://cdn.example", resource_type: "Image", count: 2 },
      { origin: "https://fonts.example", resource_type: "Font", count: 1 },
    ]);
    expect(describeReadsElsewhere(watch.readsElsewhere())).toBe("2 images from https://cdn.example; 1 font from https://fonts.example");
    expect(watch.violation).toBeUndefined();
  });

  it("lets the page read from other hosts in a run the person asked for, but never open a document or write there", () => {
    const run = { onBehalfOfPerson: true };
    expect(refusal(cdnFont, "GET", page, policy, { ...run, resourceType: "Font" })).toBeUndefined();
    expect(refusal(new URL("https://cdn.example.net/app.js"), "GET", page, policy, { ...run, resourceType: "Script" })).toBeUndefined();
    expect(refusal(new URL("https://elsewhere.example/"), "GET", page, policy, { ...run, resourceType: "Document" })).toMatch(/refused/);
    expect(refusal(new URL("https://elsewhere.example/collect"), "POST", page, policy, { ...run, resourceType: "XHR" })).toMatch(/refused/);
    // A read of unknown kind is treated as a document.
    expect(refusal(cdnFont, "GET", page, policy, run)).toMatch(/refused/);
  });

  it("lets a DELETE go only during a step the person confirmed, and only in their own run", () => {
    const item = new URL("https://shop.example.com/api/cart/3");
    expect(refusal(item, "DELETE", page, policy, { onBehalfOfPerson: true, personConfirmed: false, resourceType: "Fetch" })).toMatch(/destructive/);
    expect(refusal(item, "DELETE", page, policy, { onBehalfOfPerson: true, personConfirmed: true, resourceType: "Fetch" })).toBeUndefined();
    expect(refusal(item, "DELETE", page, policy, { onBehalfOfPerson: false, personConfirmed: true, resourceType: "Fetch" })).toMatch(/destructive/);
  });
});

import { describe, expect, it } from "vitest";
import { TestPolicySchema } from "../../shared/learning/test-policy";
import { refusal } from "./policy-guard";

const policy = TestPolicySchema.parse({
  policy_id: crypto.randomUUID(),
  mode: "live_read_safe_write",
  allowed_domains: ["shop.example.com"],
  forbid_destructive_writes: true,
  forbid_external_send: true,
  schema_version: 1,
});
const page = "https://shop.example.com";
const cdnFont = new URL("https://fonts.cdn.example.net/inter.woff2");

describe("the network rule of a run", () => {
  it("refuses every off-site request under a test policy, the page's own reads included (as a rehearsal does)", () => {
    expect(refusal(cdnFont, "GET", page, policy, { resourceType: "Font" })).toMatch(/not in the test policy's allowed_domains/);
    expect(refusal(cdnFont, "GET", page, policy, { resourceType: "Font", onBehalfOfPerson: false })).toBeDefined();
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

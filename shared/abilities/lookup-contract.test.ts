import { describe, it, expect } from "vitest";
import { AbilityAvailabilityEntrySchema } from "./availability";
import { AbilityLookupQuerySchema } from "./lookup-contract";

describe("AbilityLookupQuerySchema (§0C.11)", () => {
  it("searches approved and shared lanes plus the user's private abilities by default", () => {
    const parsed = AbilityLookupQuerySchema.parse({ user_query: "export invoices", schema_version: 1 });
    expect(parsed.install_lanes_allowed).toEqual(["approved_workspace", "shared_promoted"]);
    expect(parsed.include_private_owned_by_user).toBe(true);
  });

  it("does not let a caller ask for quarantined or pending abilities", () => {
    for (const lane of ["quarantined", "pending"]) {
      const result = AbilityLookupQuerySchema.safeParse({ user_query: "x", install_lanes_allowed: [lane], schema_version: 1 });
      expect(result.success).toBe(false);
    }
  });

  it("rejects a query over 500 characters", () => {
    expect(AbilityLookupQuerySchema.safeParse({ user_query: "q".repeat(501), schema_version: 1 }).success).toBe(false);
  });
});

describe("AbilityAvailabilityEntrySchema (§0C.11A)", () => {
  it("rejects the pending lane: only installed abilities are available", () => {
    const result = AbilityAvailabilityEntrySchema.safeParse({
      ability_id: "a1",
      title: "t",
      family: "web",
      source: "learned",
      install_lane: "pending",
      enabled: true,
      usable_now: true,
      schema_version: 1,
    });
    expect(result.success).toBe(false);
  });
});

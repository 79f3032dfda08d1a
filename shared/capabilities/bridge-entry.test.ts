import { describe, it, expect } from "vitest";
import { CapabilityBridgeCurrentSchema, CapabilityRegistryBridgeEntrySchema } from "./bridge-entry";

const entry = {
  capability_id: "web.export_invoices",
  family: "web",
  title: "Export invoices",
  route_tier: 2,
  health_status: "healthy",
  origin_owner: "provisional_scanner",
  metadata_ref: "system/capabilities/metadata/web.export_invoices.json",
  updated_at: "2026-01-01T00:00:00Z",
  schema_version: 1,
};

describe("CapabilityRegistryBridgeEntrySchema (§1.1C as fixed by §0C.19)", () => {
  it("accepts the fourth origin owner that the DOC10 copy lacked", () => {
    expect(CapabilityRegistryBridgeEntrySchema.safeParse(entry).success).toBe(true);
  });

  it("rejects an updated_at that is not an ISO datetime", () => {
    expect(CapabilityRegistryBridgeEntrySchema.safeParse({ ...entry, updated_at: "yesterday" }).success).toBe(false);
  });

  it("rejects a metadata_ref over 240 characters", () => {
    expect(CapabilityRegistryBridgeEntrySchema.safeParse({ ...entry, metadata_ref: "m".repeat(241) }).success).toBe(false);
  });

  it("rejects a route tier outside 1–5 and more than 20 aliases", () => {
    expect(CapabilityRegistryBridgeEntrySchema.safeParse({ ...entry, route_tier: 6 }).success).toBe(false);
    const aliases = Array.from({ length: 21 }, (_, i) => `alias-${i}`);
    expect(CapabilityRegistryBridgeEntrySchema.safeParse({ ...entry, aliases }).success).toBe(false);
  });
});

describe("CapabilityBridgeCurrentSchema", () => {
  it("parses the bridge file and validates every entry in it", () => {
    const file = { entries: [entry], rebuilt_at: "2026-01-01T00:00:01Z", schema_version: 1 };
    expect(CapabilityBridgeCurrentSchema.parse(file).entries[0]?.aliases).toEqual([]);
    expect(CapabilityBridgeCurrentSchema.safeParse({ ...file, entries: [{ ...entry, route_tier: 0 }] }).success).toBe(false);
  });
});

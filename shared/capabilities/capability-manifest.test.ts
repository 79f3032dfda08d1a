import { describe, it, expect } from "vitest";
import { CapabilityManifestSchema } from "./capability-manifest";
import { ControlSurfaceSchema } from "./control-surface";

const manifest = {
  capability_id: "web.export_invoices",
  family: "web",
  kind: "promoted_skill",
  title: "Export invoices",
  origin_skill: "export-invoices",
  surface_order: ["native_openclaw_browser", "raw_ui"],
  runtime_binding: { binding_kind: "workflow_pattern", target: "skills/export-invoices/SKILL.md" },
  verification: [{ kind: "snapshot_label", target: "Download complete" }],
  health_probe: { kind: "noop", target: "none" },
  learning_policy: {},
  schema_version: 1,
};

describe("ControlSurfaceSchema (§0.2A)", () => {
  it("rejects the superseded §1.1B surfaces and accepts the §0.2A ones", () => {
    expect(ControlSurfaceSchema.safeParse("native_openclaw_exec").success).toBe(false);
    expect(ControlSurfaceSchema.safeParse("native_openclaw_nodes").success).toBe(false);
    expect(ControlSurfaceSchema.safeParse("wrapper_script").success).toBe(true);
  });
});

describe("CapabilityManifestSchema (§1.1B + R9.1 §3.2)", () => {
  it("fills policy and probe defaults on a minimal manifest", () => {
    const parsed = CapabilityManifestSchema.parse(manifest);
    expect(parsed.health_probe.timeout_ms).toBe(3000);
    expect(parsed.learning_policy).toEqual({
      teach_mode_allowed: true,
      auto_capture_trace: true,
      proposal_required_for_mutation: true,
    });
    expect(parsed.retrieval_corpus_hints).toEqual([]);
    expect(parsed.routing_eligible).toBe(true);
  });

  it("keeps retrieval hints through a round trip", () => {
    const withHints = { ...manifest, retrieval_corpus_hints: [{ corpus_id: "brief_bank", purpose: "support_pack_lookup" }] };
    expect(CapabilityManifestSchema.parse(withHints).retrieval_corpus_hints).toEqual([
      { corpus_id: "brief_bank", purpose: "support_pack_lookup", priority: "useful" },
    ]);
  });

  it("rejects a manifest without a surface or a verification rule", () => {
    expect(CapabilityManifestSchema.safeParse({ ...manifest, surface_order: [] }).success).toBe(false);
    expect(CapabilityManifestSchema.safeParse({ ...manifest, verification: [] }).success).toBe(false);
  });
});

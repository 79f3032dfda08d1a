import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import { PageSnapshotSchema, SNAPSHOT_REF_PREFIX, canonicalJson } from "../../../shared/observation/page-snapshot";
import { nameSnapshot } from "../../observation/snapshot/snapshot-json";
import { cutForeignEchoes } from "./cross-site-echoes";

const SESSION = "7b0a5c8e-8f64-4a43-9d0c-1f2d3e4a5b6c";
const folder = path.join(import.meta.dirname, "../../../agent/learning/compiler/golden/checkout/snapshots");
const recorded = PageSnapshotSchema.parse(JSON.parse(readFileSync(path.join(folder, readdirSync(folder)[0]!), "utf8")));

function event(label: string, ref: string): ObservedActionEventWithDetail {
  return {
    event_id: crypto.randomUUID(),
    learn_session_id: SESSION,
    adapter_kind: "browser_dom",
    action_label: label,
    caused_state_change: true,
    redaction_mode: "mask_text",
    after_state_ref: ref,
    created_at: new Date().toISOString(),
    schema_version: 1,
  };
}

describe("another site's typed values in a page's batch (issue #30)", () => {
  it("cuts them out of events and snapshots, renames the changed snapshot and points the events at it", async () => {
    const shown = { ...recorded, headings: [...recorded.headings, { level: 2, text: "Welcome back, Grace Hopper" }] };
    const named = await nameSnapshot(shown);
    const ref = named.ref!;
    const cut = await cutForeignEchoes(
      { events: [event("Click 'Grace Hopper ▾'", ref)], snapshots: [{ sha256: named.sha256!, learn_session_id: SESSION, snapshot: shown }] },
      ["grace hopper", "never shown here"],
    );
    expect(cut.found).toEqual(["grace hopper"]);
    expect(JSON.stringify([cut.events, cut.snapshots]).toLowerCase()).not.toContain("grace hopper");
    expect(cut.events[0]?.action_label).toBe("Click '••• ▾'");
    const snapshot = cut.snapshots[0]!;
    expect(snapshot.snapshot.headings.at(-1)?.text).toBe("Welcome back, •••");
    // Named by its new content, and the event follows it.
    expect(snapshot.sha256).toBe((await nameSnapshot(snapshot.snapshot, canonicalJson(snapshot.snapshot))).sha256);
    expect(snapshot.sha256).not.toBe(named.sha256);
    expect(cut.events[0]?.after_state_ref).toBe(`${SNAPSHOT_REF_PREFIX}${snapshot.sha256}`);
  });

  it("leaves a batch that shows none of them as it was", async () => {
    const named = await nameSnapshot(recorded);
    const batch = { events: [event("Click 'Place order'", named.ref!)], snapshots: [{ sha256: named.sha256!, learn_session_id: SESSION, snapshot: recorded }] };
    const cut = await cutForeignEchoes(batch, ["grace hopper"]);
    expect(cut).toEqual({ ...batch, found: [] });
  });
});

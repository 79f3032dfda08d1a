import { describe, expect, it } from "vitest";
import type { ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import { typedMarker } from "../../../shared/observation/url-rule";
import { valueRef } from "../../../shared/observation/value-ref";
import { createPrivacyBoundary, unescapeCss } from "./privacy-boundary";

const CANARY = "Osprey 42 Quill";

function event(overrides: Partial<ObservedActionEventWithDetail["browser_detail"]> & { label?: string } = {}): ObservedActionEventWithDetail {
  const { label, ...detail } = overrides;
  return {
    event_id: "0b5f0c8e-8f64-4a43-9d0c-1f2d3e4a5b6c",
    learn_session_id: "7b0a5c8e-8f64-4a43-9d0c-1f2d3e4a5b6c",
    adapter_kind: "browser_dom",
    action_label: label ?? `Click '${CANARY}'`,
    caused_state_change: false,
    redaction_mode: "mask_text",
    created_at: "2026-11-24T08:00:00.000Z",
    schema_version: 1,
    window_title: `${CANARY.toUpperCase()} - Search`,
    browser_detail: {
      page_url: `https://notes.example.com/search/${encodeURIComponent(CANARY)}?q=${encodeURIComponent(CANARY)}#search/${encodeURIComponent(CANARY)}`,
      page_title: `${CANARY} - Search`,
      target_name: CANARY.toLowerCase(),
      target_role: "button",
      selectors: [[`aria/${CANARY}[role="button"]`], [`#${CANARY.replace(/ /g, "\\ ")}`], ["#send"]],
      masked_field: { masked: true, length_class: "medium", value_hash: "ab".repeat(32) },
      dom_event_kind: "click",
      ...detail,
    },
  };
}

describe("the content script's privacy boundary", () => {
  it("cuts a value typed on this page out of every page-derived string of an event, and keeps ids, refs and the masked field", () => {
    const boundary = createPrivacyBoundary();
    expect(boundary.remember([CANARY])).toEqual([CANARY]);
    const original = event();
    const out = boundary.event(original);
    expect(JSON.stringify(out).toLowerCase()).not.toContain("osprey 42");
    expect(JSON.stringify(out)).not.toContain("Osprey%2042");
    expect(out.action_label).toBe("Click '•••'");
    // No session key yet: the typed value is marked, named by nothing.
    expect(out.browser_detail?.page_url).toBe("https://notes.example.com/search/*typed*?q=*typed*#search/*typed*");
    expect(out.browser_detail?.selectors).toEqual([["#send"]]);
    expect(out.event_id).toBe(original.event_id);
    expect(out.browser_detail?.masked_field).toEqual(original.browser_detail?.masked_field);
  });

  it("keeps what routes in an address, names a typed value by its session reference, and masks secrets (issue #35)", () => {
    const boundary = createPrivacyBoundary();
    const key = "session-key-abcdefghijklmnop";
    boundary.setKey(key);
    boundary.setSessionValues(["Meeting notes"]);
    const raw = "https://wiki.example/doku.php?id=Meeting%20Notes&do=edit&sectok=9a8b7c6d#/page/meeting+notes?tab=history";
    const masked = boundary.url(raw);
    const marker = typedMarker(valueRef(key, "Meeting notes"));
    expect(masked).toBe(`https://wiki.example/doku.php?id=${marker}&do=edit&sectok=*#/page/${marker}?tab=history`);
    expect(masked.toLowerCase()).not.toContain("meeting");
    // The same in every URL field of an event, and of a snapshot.
    const out = boundary.event(event({ page_url: raw }));
    expect(out.browser_detail?.page_url).toBe(masked);
    // A value the person did not type stays: the page routes by it.
    expect(boundary.url("https://wiki.example/doku.php?id=start&do=login")).toBe("https://wiki.example/doku.php?id=start&do=login");
    // The session ends: no value is known, and nothing is named by a reference any more.
    boundary.forget();
    expect(boundary.url("https://wiki.example/doku.php?id=Meeting%20Notes")).toBe("https://wiki.example/doku.php?id=Meeting%20Notes");
  });

  it("scrubs a string field the boundary has never heard of (a field added to the contract later)", () => {
    const boundary = createPrivacyBoundary();
    boundary.remember([CANARY]);
    const withNewField = { ...event(), browser_detail: { ...event().browser_detail!, future_caption: `Shown: ${CANARY}` } } as ObservedActionEventWithDetail;
    expect(JSON.stringify(boundary.event(withNewField))).not.toContain(CANARY);
  });

  it("knows values typed on the session's other pages, and what fields hold right now, and forgets all at the end", () => {
    const boundary = createPrivacyBoundary();
    boundary.setSessionValues([CANARY]);
    boundary.setLiveValues(() => ["Still Typing Here"]);
    expect(boundary.text(`Results for ${CANARY} and still typing here`)).toBe("Results for ••• and •••");
    expect(boundary.remember([CANARY, "  "])).toEqual([]);
    boundary.forget();
    boundary.setLiveValues(undefined);
    expect(boundary.text(`Results for ${CANARY}`)).toBe(`Results for ${CANARY}`);
  });

  it("cuts a value typed after a text was already let through, from that text too (no answer of an earlier scrubber goes stale)", () => {
    const boundary = createPrivacyBoundary();
    let live: string[] = [];
    boundary.setLiveValues(() => live);
    const shown = `No results for ${CANARY}`;
    expect(boundary.text(shown)).toBe(shown);
    live = [CANARY];
    // The live values are read once per task: the next task sees the field's new text.
    return Promise.resolve().then(() => {
      expect(boundary.text(shown)).toBe("No results for •••");
      live = [];
      expect(boundary.remember([CANARY])).toEqual([CANARY]);
      expect(boundary.text(`${shown}!`)).toBe("No results for •••!");
      expect(boundary.text(shown)).toBe("No results for •••");
    });
  });

  it("walks snapshots too: titles, headings, names and status text, keeping their structure", () => {
    const boundary = createPrivacyBoundary();
    boundary.remember(["Ship to line one\nFlat 9 line two"]);
    const snapshot: PageSnapshot = {
      url: "https://shop.example.com/checkout#ship/Flat%209%20line%20two",
      title: "Checkout",
      headings: [{ level: 2, text: "Ship to: Ship to line one Flat 9 line two" }],
      landmarks: [{ role: "main" }],
      dialogs: [],
      forms: [{ name: "Address", fields: [{ label: "Address", type: "textarea", required: false }] }],
      buttons: ["Confirm flat 9 LINE TWO"],
      links: [],
      status_messages: ["Saved Ship to line one"],
      schema_version: 1,
    };
    const out = boundary.snapshot(snapshot);
    expect(out.headings).toEqual([{ level: 2, text: "Ship to: •••" }]);
    expect(out.buttons).toEqual(["Confirm •••"]);
    expect(out.status_messages).toEqual(["Saved •••"]);
    expect(out.url).toBe("https://shop.example.com/checkout#ship/*typed*");
    expect(out.forms).toEqual(snapshot.forms);
  });

  it("drops selectors that carry a value only once their CSS escapes are undone", () => {
    const boundary = createPrivacyBoundary();
    boundary.remember(["123abc"]);
    expect(unescapeCss("#\\31 23abc")).toBe("#123abc");
    expect(boundary.selectors([["#\\31 23abc"], ['[data-x="1\\32 3abc"]'], ["#keep"]])).toEqual([["#keep"]]);
  });
});

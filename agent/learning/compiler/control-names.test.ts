import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import { interpretTrace } from "./interpret";
import { normalizeTrace } from "./normalize-trace";

/**
 * Issue #35 "Names": names as real apps give them to the capture — an access-key hint, an icon
 * glyph, a counter, a doubled word — become the names a person would say, in step labels and in
 * parameter names. Selectors keep the browser's own name (they must still find the control).
 */

const SESSION = randomUUID();
let clock = Date.parse("2026-12-01T10:00:00Z");

function dom(label: string, detail: Partial<NonNullable<ObservedActionEventWithDetail["browser_detail"]>>): ObservedActionEventWithDetail {
  return {
    event_id: randomUUID(),
    learn_session_id: SESSION,
    adapter_kind: "browser_dom",
    app_family: "browser",
    action_label: label,
    caused_state_change: false,
    redaction_mode: "hash_only",
    created_at: new Date((clock += 1000)).toISOString(),
    schema_version: 1,
    browser_detail: { page_url: "http://127.0.0.1:4100/wiki", page_title: "Wiki", selectors: [], ...detail },
  };
}

const masked = (hash: string) => ({ masked: true as const, length_class: "short" as const, value_hash: hash.repeat(64) });

function compile(events: ObservedActionEventWithDetail[]) {
  const trace = normalizeTrace({ events, boundaries: [] });
  return { trace, interpretation: interpretTrace({ trace, snapshots: new Map(), answers: { goal_summary: "Find a page" } }) };
}

describe("names a person would say (issue #35)", () => {
  it("names a search box whose only name was its access-key hint `search`, never `f`", () => {
    const { trace, interpretation } = compile([
      dom("Fill '[F]'", {
        dom_event_kind: "change",
        target_role: "searchbox",
        target_name: "[F]",
        target_tag: "input",
        input_type: "search",
        selectors: [['aria/[F][role="searchbox"]'], ["#q"]],
        masked_field: masked("a"),
      }),
    ]);
    expect(trace.steps[0]?.label).toBe("Fill the search box");
    expect(trace.steps[0]?.selectors[0]).toEqual(['aria/[F][role="searchbox"]']);
    expect(interpretation.parameters.map((parameter) => parameter.name)).toEqual(["search"]);
  });

  it("strips a hint, a glyph, a counter and a doubled word from step labels and parameter names", () => {
    const { trace, interpretation } = compile([
      dom("Fill 'Search Notes [alt-shift-f]'", {
        dom_event_kind: "change",
        target_role: "searchbox",
        target_name: "Search Notes [alt-shift-f]",
        target_tag: "input",
        input_type: "search",
        masked_field: masked("b"),
      }),
      dom("Click 'Insert Insert'", { dom_event_kind: "click", target_role: "tab", target_name: "Insert Insert", target_tag: "a" }),
      dom("Click '\uE0C9 Edit'", { dom_event_kind: "click", target_role: "button", target_name: "\uE0C9 Edit", target_tag: "button" }),
      dom("Click 'Inbox (3)'", { dom_event_kind: "click", target_role: "link", target_name: "Inbox (3)", target_tag: "a" }),
    ]);
    expect(trace.steps.map((step) => step.label)).toEqual(["Fill 'Search Notes'", "Click 'Insert'", "Click 'Edit'", "Click 'Inbox'"]);
    expect(interpretation.parameters.map((parameter) => parameter.name)).toEqual(["search_notes"]);
  });

  it("names unnamed fields by their kind, not `value` and `value_2`", () => {
    const { interpretation } = compile([
      dom("Fill the text field", {
        dom_event_kind: "change",
        target_role: "textbox",
        target_tag: "input",
        input_type: "email",
        selectors: [["#a"]],
        masked_field: masked("c"),
      }),
      dom("Fill the text field", { dom_event_kind: "change", target_role: "textbox", target_tag: "textarea", selectors: [["#b"]], masked_field: masked("d") }),
    ]);
    expect(interpretation.parameters.map((parameter) => parameter.name)).toEqual(["email", "text"]);
  });
});

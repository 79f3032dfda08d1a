import { describe, it, expect } from "vitest";
import { ObservedActionEventSchema, ObservedActionEventWithDetailSchema, BrowserEventDetailSchema } from "./observed-action";
import { OBSERVATION_ADAPTER_PHASES, ObservationAdapterKindSchema } from "./observation-adapter";

const canonical = {
  event_id: "0b6f5e1c-2d3a-4b5c-8d7e-9f0a1b2c3d4e",
  learn_session_id: "6f1c2a0e-8a3b-4c1d-9e2f-0a1b2c3d4e5f",
  adapter_kind: "browser_dom",
  app_family: "browser",
  window_title: "Invoices — Example",
  action_label: "Click “Create invoice”",
  control_surface: "native_openclaw_browser",
  caused_state_change: true,
  created_at: "2025-01-01T10:00:00.000Z",
  schema_version: 1,
};

const detail = {
  page_url: "https://example.com/invoices",
  page_title: "Invoices",
  target_role: "button",
  target_name: "Create invoice",
  target_tag: "button",
  selectors: [["aria/Create invoice"], ["#app", "pierce/button.create"]],
  frame_path: [0],
  dom_event_kind: "click",
};

describe("ObservedActionEventSchema (§0C.22)", () => {
  it("parses a canonical event and masks text by default", () => {
    const event = ObservedActionEventSchema.parse(canonical);
    expect(event.redaction_mode).toBe("mask_text");
    expect(event.caused_state_change).toBe(true);
  });

  it("rejects an action_label over 240 characters", () => {
    const result = ObservedActionEventSchema.safeParse({ ...canonical, action_label: "x".repeat(241) });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["action_label"]);
  });

  it("rejects an event without a session link", () => {
    const { learn_session_id: _dropped, ...orphan } = canonical;
    expect(ObservedActionEventSchema.safeParse(orphan).success).toBe(false);
  });

  it("rejects a control surface outside §0.2A", () => {
    expect(ObservedActionEventSchema.safeParse({ ...canonical, control_surface: "native_openclaw_exec" }).success).toBe(false);
  });
});

describe("ObservedActionEventWithDetailSchema", () => {
  it("keeps every canonical field and only adds the browser and desktop detail", () => {
    const canonicalKeys = Object.keys(ObservedActionEventSchema.shape).sort();
    const extendedKeys = Object.keys(ObservedActionEventWithDetailSchema.shape).sort();
    expect(extendedKeys).toEqual([...canonicalKeys, "browser_detail", "desktop_detail"].sort());
  });

  it("parses to the canonical event plus the detail", () => {
    const withDetail = ObservedActionEventWithDetailSchema.parse({ ...canonical, browser_detail: detail });
    const { browser_detail, ...rest } = withDetail;
    expect(rest).toEqual(ObservedActionEventSchema.parse(canonical));
    expect(browser_detail?.selectors[0]).toEqual(["aria/Create invoice"]);
  });

  it("still enforces the canonical limits", () => {
    const result = ObservedActionEventWithDetailSchema.safeParse({
      ...canonical,
      action_label: "x".repeat(241),
      browser_detail: detail,
    });
    expect(result.success).toBe(false);
  });

  it("is readable as a canonical event, the detail being dropped", () => {
    const event = ObservedActionEventSchema.parse({ ...canonical, browser_detail: detail });
    expect("browser_detail" in event).toBe(false);
  });
});

describe("BrowserEventDetailSchema", () => {
  it("accepts a masked text field with a length class and a keyed hash", () => {
    const parsed = BrowserEventDetailSchema.safeParse({
      ...detail,
      dom_event_kind: "change",
      input_type: "email",
      masked_field: { masked: true, length_class: "medium", value_hash: "hmac-sha256:ab12", reason: "text_entry" },
    });
    expect(parsed.success).toBe(true);
  });

  it("refuses a password that is hashed or left unmasked", () => {
    const hashed = BrowserEventDetailSchema.safeParse({
      ...detail,
      input_type: "password",
      masked_field: { masked: true, value_hash: "hmac-sha256:ab12" },
    });
    const unmasked = BrowserEventDetailSchema.safeParse({
      ...detail,
      input_type: "password",
      masked_field: { masked: false },
    });
    expect(hashed.success).toBe(false);
    expect(unmasked.success).toBe(false);
  });

  it("rejects an empty selector alternative and an over-long URL", () => {
    expect(BrowserEventDetailSchema.safeParse({ ...detail, selectors: [[]] }).success).toBe(false);
    expect(BrowserEventDetailSchema.safeParse({ ...detail, page_url: `https://e.com/${"a".repeat(2040)}` }).success).toBe(false);
  });
});

describe("OBSERVATION_ADAPTER_PHASES (§0C.22)", () => {
  it("makes exactly the six day-one adapters phase 1", () => {
    const phase1 = ObservationAdapterKindSchema.options.filter((k) => OBSERVATION_ADAPTER_PHASES[k] === "phase_1");
    expect(phase1.sort()).toEqual(["browser_dom", "browser_snapshot", "mcp_receipt", "wrapper_receipt", "terminal_command", "process_launch"].sort());
    expect(OBSERVATION_ADAPTER_PHASES.mouse_click).toBe("phase_3");
    expect(OBSERVATION_ADAPTER_PHASES.midi).toBe("phase_2");
  });
});

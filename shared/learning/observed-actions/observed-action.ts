import { z } from "zod";
import { ObservationAdapterKindSchema } from "./observation-adapter";
import { ControlSurfaceSchema } from "../../capabilities/control-surface";
import { DesktopEventDetailSchema } from "./desktop-detail";

/**
 * §0C.22 The canonical observed action (promoted from §0A.9; supersedes the §0.2F version per
 * §0C.19). `action_label` is what a person would call the step, so it is named from accessible
 * names, never from selectors or typed values.
 */
export const ObservedActionEventSchema = z.object({
  event_id: z.string().uuid(),
  learn_session_id: z.string().uuid(),
  adapter_kind: ObservationAdapterKindSchema,
  app_family: z.string().max(80).optional(),
  window_title: z.string().max(200).optional(),
  action_label: z.string().max(240),
  control_surface: ControlSurfaceSchema.optional(),
  target_ref: z.string().max(240).optional(),
  before_state_ref: z.string().max(240).optional(),
  after_state_ref: z.string().max(240).optional(),
  caused_state_change: z.boolean().default(false),
  redaction_mode: z.enum(["none", "mask_text", "hash_only"]).default("mask_text"),
  created_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.22 */
export type ObservedActionEvent = z.infer<typeof ObservedActionEventSchema>;

/**
 * DESIGN §4 What is left of a field value after masking in the page: whether it was masked, a
 * coarse length, and, for `hash_only`, a per-session keyed hash so equal values can be matched
 * without being known. The raw value never has a field to go in.
 */
export const MaskedFieldSchema = z
  .object({
    masked: z.boolean(),
    length_class: z.enum(["empty", "short", "medium", "long"]).optional(),
    value_hash: z.string().max(128).optional(),
    /**
     * The value's keyed reference (shared/observation/value-ref.ts, issue #35): an address that
     * carries the value names it so (`*typed-<ref>*`), and the compiler puts this field's parameter
     * there. Reveals only that two places held the same value; secrets have none.
     */
    value_ref: z
      .string()
      .regex(/^[0-9a-f]{12}$/)
      .optional(),
    reason: z.string().max(120).optional(),
    /**
     * The typed value itself: only ever present when the user consented to `redaction_mode = none`
     * for this session (§0C.22 privacy rule 4); the agent refuses it otherwise.
     */
    value: z.string().max(1000).optional(),
  })
  .refine((field) => !(field.masked && field.value !== undefined), {
    message: "a masked field carries no value",
    path: ["value"],
  });
/** DESIGN §4 */
export type MaskedField = z.infer<typeof MaskedFieldSchema>;

/** DESIGN §6 The DOM event an observed browser action came from, after noise is dropped. */
export const DomEventKindSchema = z.enum(["click", "change", "submit", "keydown", "navigation", "file_select", "select"]);
/** DESIGN §6 */
export type DomEventKind = z.infer<typeof DomEventKindSchema>;

/**
 * §0C.22 (browser_dom / browser_snapshot adapters), DESIGN §6. Browser detail the canonical event
 * has no room for, needed to compile a replayable flow. `selectors` follows the Chrome DevTools
 * Recorder: ordered alternatives, best first; each alternative is a list of parts, one per frame or
 * shadow root to pierce. `frame_path` is the Recorder's `frame` index path. `dom_event_kind` is
 * optional because snapshot events have none.
 *
 * Passwords are always masked and never hashed (DESIGN §4); the schema refuses anything else so a
 * faulty content script cannot slip a password hash past the agent.
 */
export const BrowserEventDetailSchema = z
  .object({
    page_url: z.string().max(2048),
    page_title: z.string().max(200).optional(),
    target_role: z.string().max(80).optional(),
    target_name: z.string().max(240).optional(),
    target_tag: z.string().max(40).optional(),
    input_type: z.string().max(40).optional(),
    selectors: z
      .array(z.array(z.string().min(1).max(1024)).min(1).max(16))
      .max(12)
      .default([]),
    frame_path: z.array(z.number().int().min(0)).max(16).optional(),
    masked_field: MaskedFieldSchema.optional(),
    dom_event_kind: DomEventKindSchema.optional(),
  })
  .superRefine((detail, ctx) => {
    if (detail.input_type?.toLowerCase() !== "password" || detail.masked_field === undefined) return;
    if (!detail.masked_field.masked) {
      ctx.addIssue({ code: "custom", message: "password fields are always masked", path: ["masked_field", "masked"] });
    }
    if (detail.masked_field.value_hash !== undefined) {
      ctx.addIssue({ code: "custom", message: "password fields are never hashed", path: ["masked_field", "value_hash"] });
    }
    if (detail.masked_field.value_ref !== undefined) {
      ctx.addIssue({ code: "custom", message: "password fields are never referenced", path: ["masked_field", "value_ref"] });
    }
    if (detail.masked_field.value !== undefined) {
      ctx.addIssue({ code: "custom", message: "password values never leave the page", path: ["masked_field", "value"] });
    }
  });
/** §0C.22, DESIGN §6 */
export type BrowserEventDetail = z.infer<typeof BrowserEventDetailSchema>;

/**
 * §0C.22 + DESIGN §6 The canonical event with optional browser detail alongside; the canonical
 * fields are untouched, so anything that reads `ObservedActionEvent` reads this too.
 */
export const ObservedActionEventWithDetailSchema = ObservedActionEventSchema.extend({
  browser_detail: BrowserEventDetailSchema.optional(),
  desktop_detail: DesktopEventDetailSchema.optional(),
});
/** §0C.22 */
export type ObservedActionEventWithDetail = z.infer<typeof ObservedActionEventWithDetailSchema>;

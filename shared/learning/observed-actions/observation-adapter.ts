import { z } from "zod";

/** §0C.22 Every source of observed actions, browser and desktop alike. */
export const ObservationAdapterKindSchema = z.enum([
  "browser_dom",
  "browser_snapshot",
  "accessibility_ui",
  "keyboard_shortcut",
  "text_entry",
  "mouse_click",
  "clipboard",
  "file_dialog",
  "process_launch",
  "terminal_command",
  "midi",
  "mcp_receipt",
  "wrapper_receipt",
]);
/** §0C.22 */
export type ObservationAdapterKind = z.infer<typeof ObservationAdapterKindSchema>;

/** §0C.22 */
export const ObservationAdapterStatusSchema = z.object({
  adapter_id: z.string().max(80),
  kind: ObservationAdapterKindSchema,
  enabled: z.boolean(),
  healthy: z.boolean(),
  phase: z.enum(["phase_1", "phase_2", "phase_3"]),
  last_seen_at: z.string().datetime().optional(),
  last_error_code: z.string().max(120).optional(),
  schema_version: z.literal(1),
});
/** §0C.22 */
export type ObservationAdapterStatus = z.infer<typeof ObservationAdapterStatusSchema>;

/** §0C.22 */
export type ObservationAdapterPhase = ObservationAdapterStatus["phase"];

/**
 * §0C.22 Phase tiering. Only phase 1 exists on day one; asking for a later phase must fail with
 * `ADAPTER_UNAVAILABLE` (R11.2-44). A Record keeps a new adapter kind from compiling without a phase.
 */
export const OBSERVATION_ADAPTER_PHASES: Readonly<Record<ObservationAdapterKind, ObservationAdapterPhase>> = Object.freeze({
  browser_dom: "phase_1",
  browser_snapshot: "phase_1",
  mcp_receipt: "phase_1",
  wrapper_receipt: "phase_1",
  terminal_command: "phase_1",
  process_launch: "phase_1",
  keyboard_shortcut: "phase_2",
  file_dialog: "phase_2",
  midi: "phase_2",
  accessibility_ui: "phase_3",
  mouse_click: "phase_3",
  clipboard: "phase_3",
  text_entry: "phase_3",
});

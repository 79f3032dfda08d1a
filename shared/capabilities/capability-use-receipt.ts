import { z } from "zod";

/**
 * §0.8 Every capability use emits a correlated receipt. A run of an ability (issue #21) writes one
 * per dispatch to `system/capabilities/use_receipts.jsonl`: `dispatch_id` is the run, `approval_mode`
 * says how its consequences were allowed (`ask_first` when the person confirmed a step,
 * `manual_click` when the person started it in the side panel), and `route_trace_id` names the
 * caller (`side_panel:…`, `api:…`, `mcp:…`, `schedule:…` for a run of the person's schedule), which §0.8 has no other field for.
 */
export const CapabilityUseReceiptSchema = z.object({
  receipt_id: z.string().uuid(),
  capability_id: z.string().max(160),
  provider: z.string().max(80).optional(),
  connector_server_id: z.string().max(120).optional(),
  dispatch_id: z.string().max(200).optional(),
  operation_id: z.string().max(200).optional(),
  route_trace_id: z.string().max(200).optional(),
  approval_mode: z.enum(["autonomous", "standing_order", "ask_first", "manual_click"]).default("autonomous"),
  receipt_detail_level: z.enum(["minimal", "standard", "detailed"]).default("standard"),
  project_id: z.string().max(160).optional(),
  result: z.enum(["success", "failure", "denied", "cancelled"]),
  created_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0.8 */
export type CapabilityUseReceipt = z.infer<typeof CapabilityUseReceiptSchema>;

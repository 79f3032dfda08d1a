import { z } from "zod";

/** Chrome extension ids are 32 letters a–p (a base-16 digest written with a–p). */
export const ExtensionIdSchema = z.string().regex(/^[a-p]{32}$/, "not a Chrome extension id");
export type ExtensionId = z.infer<typeof ExtensionIdSchema>;

/**
 * `POST /api/pairing` — the side panel proves it holds the token `npm start` printed and tells
 * the agent its extension id, so the agent's Origin check can be exact from then on.
 */
export const PairingRequestSchema = z.object({
  extension_id: ExtensionIdSchema,
  schema_version: z.literal(1),
});
export type PairingRequest = z.infer<typeof PairingRequestSchema>;

export const PairingResponseSchema = z.object({
  paired: z.literal(true),
  extension_id: ExtensionIdSchema,
  paired_at: z.string().datetime(),
  agent_version: z.string().max(40),
  schema_version: z.literal(1),
});
export type PairingResponse = z.infer<typeof PairingResponseSchema>;

/** What the agent keeps in `system/agent/pairing.json`. */
export const PairingRecordSchema = z.object({
  extension_id: ExtensionIdSchema,
  paired_at: z.string().datetime(),
  schema_version: z.literal(1),
});
export type PairingRecord = z.infer<typeof PairingRecordSchema>;

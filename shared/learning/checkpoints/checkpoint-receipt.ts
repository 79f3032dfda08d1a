import { z } from "zod";

/**
 * §0C.9B Per-checkpoint status in the progress view. `not_reached` is never stored: it is what a
 * checkpoint without a receipt shows.
 */
export const CheckpointProgressStatusSchema = z.enum(["not_reached", "reached", "skipped", "failed"]);
/** §0C.9B */
export type CheckpointProgressStatus = z.infer<typeof CheckpointProgressStatusSchema>;

/**
 * §0C.9B, §0C.16 `POST /api/bridge/verify-checkpoint` One line of
 * `system/learning/checkpoint_receipts.jsonl`. Referenced by the spec but never defined: the
 * receipt fields of `CheckpointProgressProps` plus identity and the two keys the read routes filter
 * by. A receipt must carry `learn_session_id` (rehearsal) or `dispatch_id` (later use), otherwise
 * neither `GET …/checkpoint-receipts` route could ever return it. `dispatch_id` follows §0.8.
 */
export const CheckpointVerificationReceiptSchema = z
  .object({
    receipt_id: z.string().uuid(),
    learn_session_id: z.string().uuid().optional(),
    dispatch_id: z.string().max(200).optional(),
    ability_id: z.string().max(160).optional(),
    checkpoint_id: z.string().min(1).max(80),
    status: z.enum(["reached", "skipped", "failed"]),
    evidence: z.string().max(1000),
    reason: z.string().max(240).optional(),
    created_at: z.string().datetime(),
    schema_version: z.literal(1),
  })
  .refine((r) => r.learn_session_id !== undefined || r.dispatch_id !== undefined, {
    message: "a checkpoint receipt needs learn_session_id or dispatch_id",
    path: ["learn_session_id"],
  });
/** §0C.9B */
export type CheckpointVerificationReceipt = z.infer<typeof CheckpointVerificationReceiptSchema>;

/**
 * `POST /api/bridge/verify-checkpoint` (§0C.16 bridge tool): a runtime agent, voluntarily
 * (R11.2-21), reports a checkpoint of a skill it is running. Either the learning session (a
 * rehearsal) or the dispatch (later use) it belongs to must be named.
 */
export const VerifyCheckpointRequestSchema = z
  .object({
    learn_session_id: z.string().uuid().optional(),
    dispatch_id: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,200}$/)
      .optional(),
    ability_id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{0,159}$/)
      .optional(),
    checkpoint_id: z.string().regex(/^[A-Za-z0-9._-]{1,80}$/),
    status: z.enum(["reached", "skipped", "failed"]),
    evidence: z.string().max(1000),
    reason: z.string().max(240).optional(),
    schema_version: z.literal(1),
  })
  .strict()
  .refine((request) => request.learn_session_id !== undefined || request.dispatch_id !== undefined, {
    message: "name the learn_session_id or the dispatch_id the checkpoint belongs to",
    path: ["dispatch_id"],
  });
export type VerifyCheckpointRequest = z.infer<typeof VerifyCheckpointRequestSchema>;

export const VerifyCheckpointResponseSchema = z.object({ receipt: CheckpointVerificationReceiptSchema });
export type VerifyCheckpointResponse = z.infer<typeof VerifyCheckpointResponseSchema>;

import { randomUUID } from "node:crypto";
import { CheckpointVerificationReceiptSchema, type CheckpointVerificationReceipt } from "../../shared/learning/checkpoints/checkpoint-receipt";
import { LearningReceiptSchema } from "../../shared/learning/sessions/receipts";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";

export type CheckpointReceiptFields = Omit<CheckpointVerificationReceipt, "receipt_id" | "created_at" | "schema_version">;

/**
 * §0C.9B: one line of `checkpoint_receipts.jsonl`. The bridge route (a runtime agent reporting) and
 * a run of an ability (issue #21) both write through here, so a dispatch's receipts look the same
 * whoever verified them and `GET /api/dispatches/:dispatchId/checkpoint-receipts` finds them all.
 */
export async function appendCheckpointReceipt(memory: MemoryStore, fields: CheckpointReceiptFields, createdAt: string): Promise<CheckpointVerificationReceipt> {
  const receipt = CheckpointVerificationReceiptSchema.parse({ receipt_id: randomUUID(), ...fields, created_at: createdAt, schema_version: 1 });
  await memory.append(MemoryPaths.checkpointReceipts, receipt);
  return receipt;
}

/**
 * One `ability.used_later` learning receipt per dispatch of an ability (§0C.9B later use): written
 * the first time a dispatch is seen, never again for the same dispatch. Callers that may race for
 * one dispatch serialize their calls.
 */
export async function recordUsedLater(memory: MemoryStore, abilityId: string, dispatchId: string, createdAt: string): Promise<boolean> {
  const seen = await memory.readJsonlContaining(MemoryPaths.receipts, LearningReceiptSchema, dispatchId);
  if (seen.some((receipt) => receipt.receipt_kind === "ability.used_later" && receipt.details?.dispatch_id === dispatchId)) return false;
  await memory.append(MemoryPaths.receipts, {
    receipt_id: randomUUID(),
    receipt_kind: "ability.used_later",
    ability_id: abilityId,
    details: { dispatch_id: dispatchId },
    created_at: createdAt,
    schema_version: 1,
  });
  return true;
}

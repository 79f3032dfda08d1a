import type { CheckpointProgressStatus, CheckpointVerificationReceipt } from "../../../shared/learning/checkpoints/checkpoint-receipt";
import type { WorkflowCheckpoint } from "../../../shared/learning/checkpoints/semantic-workflow-interpretation";

/** One row of the §0C.9B checkpoint progress view. */
export interface CheckpointProgressRow {
  checkpoint_id: string;
  goal: string;
  /** What proves it (a proposal's checkpoints say; a run's rows may not). */
  success_condition?: string;
  status: CheckpointProgressStatus;
  /** Evidence of the deciding receipt (reached, failed; also kept for skipped). */
  evidence?: string;
  /** Why it was skipped or failed. */
  reason?: string;
  at?: string;
}

/** §0C.9B the indicator of each status: symbol and words, never colour alone. */
export const CHECKPOINT_STATUS_VIEW: Record<CheckpointProgressStatus, { symbol: string; label: string }> = {
  not_reached: { symbol: "○", label: "Not yet reached" },
  reached: { symbol: "✓", label: "Reached" },
  skipped: { symbol: "↷", label: "Skipped" },
  failed: { symbol: "✕", label: "Failed" },
};

/**
 * §0C.9B: checkpoints sorted by `order_hint` (those without one after, in their given order),
 * each with the status of its latest receipt; a checkpoint without a receipt is "not yet reached".
 * Receipts for checkpoints the proposal no longer has are ignored.
 */
export function checkpointProgress(checkpoints: readonly WorkflowCheckpoint[], receipts: readonly CheckpointVerificationReceipt[]): CheckpointProgressRow[] {
  const latest = new Map<string, CheckpointVerificationReceipt>();
  for (const receipt of receipts) {
    const seen = latest.get(receipt.checkpoint_id);
    if (seen === undefined || seen.created_at <= receipt.created_at) latest.set(receipt.checkpoint_id, receipt);
  }
  return checkpoints
    .map((checkpoint, index) => ({ checkpoint, index }))
    .sort((a, b) => (a.checkpoint.order_hint ?? Number.MAX_SAFE_INTEGER) - (b.checkpoint.order_hint ?? Number.MAX_SAFE_INTEGER) || a.index - b.index)
    .map(({ checkpoint }) => {
      const receipt = latest.get(checkpoint.checkpoint_id);
      const row: CheckpointProgressRow = {
        checkpoint_id: checkpoint.checkpoint_id,
        goal: checkpoint.goal,
        success_condition: checkpoint.success_condition,
        status: receipt?.status ?? "not_reached",
      };
      if (receipt !== undefined) {
        row.evidence = receipt.evidence;
        row.at = receipt.created_at;
        if (receipt.reason !== undefined) row.reason = receipt.reason;
      }
      return row;
    });
}

import { z } from "zod";
import { CheckpointVerificationReceiptSchema } from "../../shared/learning/checkpoints/checkpoint-receipt";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";

/** How many of an ability's latest checkpoint results its health is judged on (`checkpointHealthOf`). */
const RECENT = 10;

const CheckpointStatusSchema = z.enum(["reached", "skipped", "failed"]);
type CheckpointStatus = z.infer<typeof CheckpointStatusSchema>;

/**
 * Issue 32: the compact current view of the checkpoint receipts log (§0C.9B), which keeps every
 * checkpoint of every run: each ability's last ten results, and the byte of the log folded up to.
 */
export const CheckpointHealthCurrentSchema = z.object({
  statuses: z.record(z.string(), z.array(CheckpointStatusSchema).max(RECENT)),
  folded_to_byte: z.number().int().min(0),
  schema_version: z.literal(1),
});
export type CheckpointHealthCurrent = z.infer<typeof CheckpointHealthCurrentSchema>;

const empty = (): CheckpointHealthCurrent => ({ statuses: {}, folded_to_byte: 0, schema_version: 1 });

/** Folds receipts from `from` on into `view` (in place); -1 when the log is shorter than `from` (replaced). */
async function foldFrom(memory: MemoryStore, view: CheckpointHealthCurrent): Promise<number> {
  return memory.forEachJsonlFrom(MemoryPaths.checkpointReceipts, CheckpointVerificationReceiptSchema, view.folded_to_byte, (receipt) => {
    if (receipt.ability_id === undefined) return;
    const list = [...(view.statuses[receipt.ability_id] ?? []), receipt.status];
    view.statuses[receipt.ability_id] = list.slice(-RECENT);
  });
}

/** The view folded from the whole log: what a memory without the view (or with one that does not fit the log) starts from. */
export async function rebuildCheckpointHealth(memory: MemoryStore): Promise<CheckpointHealthCurrent> {
  const view = empty();
  view.folded_to_byte = Math.max(0, await foldFrom(memory, view));
  return view;
}

/**
 * Each ability's latest checkpoint results, for the availability snapshot's `checkpoint_health`.
 * The view is brought up to date by reading only what the log gained since it was written (the
 * log is append-only, so no crash between an append and this view loses anything), then written
 * back atomically if it changed. A view that is missing, unreadable or longer than the log (an
 * older memory, a log replaced) is rebuilt once from the whole log.
 */
export async function checkpointStatuses(memory: MemoryStore): Promise<ReadonlyMap<string, readonly CheckpointStatus[]>> {
  const kept = await memory.readJson(MemoryPaths.checkpointHealthCurrent, CheckpointHealthCurrentSchema).catch(() => undefined);
  let view = kept ?? empty();
  const before = view.folded_to_byte;
  const end = kept === undefined ? -1 : await foldFrom(memory, view);
  if (end < 0) view = await rebuildCheckpointHealth(memory);
  else view.folded_to_byte = end;
  if (kept === undefined || view.folded_to_byte !== before) await memory.writeJson(MemoryPaths.checkpointHealthCurrent, view);
  return new Map(Object.entries(view.statuses));
}

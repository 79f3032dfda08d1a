import { z } from "zod";
import { ObservedActionEventWithDetailSchema } from "../../../shared/learning/observed-actions/observed-action";
import { SnapshotUploadSchema } from "../../../shared/observation/capture-protocol";
import type { ContentMessage } from "../../observation/common/capture-messages";

/** The outline of a `capture/events` message whose events did not pass the contract. */
export const InvalidEventsMessageSchema = z.object({
  type: z.literal("capture/events"),
  events: z.array(z.unknown()),
  snapshots: z.array(z.unknown()).default([]),
});

/** The events and snapshots of a batch that pass the contract on their own (at most as many as a valid batch holds). */
export function salvageBatch(batch: z.infer<typeof InvalidEventsMessageSchema>): Extract<ContentMessage, { type: "capture/events" }> {
  const events = batch.events.flatMap((item) => {
    const parsed = ObservedActionEventWithDetailSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
  const snapshots = batch.snapshots.flatMap((item) => {
    const parsed = SnapshotUploadSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
  return { type: "capture/events", events: events.slice(0, 200), snapshots: snapshots.slice(0, 20) };
}

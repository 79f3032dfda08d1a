import { describe, expect, it } from "vitest";
import { outboxStatusOf } from "./outbox-status";

describe("outboxStatusOf", () => {
  it("says near full from 80 % of the bound on", () => {
    const counts = { snapshots: 0, refusedEvents: 0, refusedSnapshots: 0 };
    expect(outboxStatusOf({ ...counts, events: 15_999 }, 20_000).near_full).toBe(false);
    expect(outboxStatusOf({ ...counts, events: 16_000 }, 20_000).near_full).toBe(true);
  });

  it("counts near full on snapshots too, and reports what was refused", () => {
    const status = outboxStatusOf({ events: 3, snapshots: 800, refusedEvents: 12, refusedSnapshots: 1 }, 20_000, 1_000);
    expect(status).toEqual({ queued: 3, capacity: 20_000, near_full: true, snapshots_queued: 800, refused: 12, refused_snapshots: 1 });
  });
});

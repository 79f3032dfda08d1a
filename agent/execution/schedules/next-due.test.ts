import { describe, expect, it } from "vitest";
import { instantOfWallTime, nextDueAfter } from "./next-due";

const at = (iso: string) => new Date(iso).getTime();
const iso = (ms: number) => new Date(ms).toISOString();

describe("when a schedule is due next (issue #33)", () => {
  it("daily: later today when the time is still ahead, else tomorrow, in the person's zone", () => {
    const rule = { kind: "daily", time: "07:30" } as const;
    // 05:00 UTC is 06:00 in Berlin (winter, UTC+1): 07:30 Berlin is 06:30 UTC the same day.
    expect(iso(nextDueAfter(rule, "Europe/Berlin", at("2026-01-05T05:00:00Z"), 0))).toBe("2026-01-05T06:30:00.000Z");
    // Exactly at the slot: the next one, never the same one twice.
    expect(iso(nextDueAfter(rule, "Europe/Berlin", at("2026-01-05T06:30:00Z"), 0))).toBe("2026-01-06T06:30:00.000Z");
    // Late evening UTC is already tomorrow in Tokyo.
    expect(iso(nextDueAfter(rule, "Asia/Tokyo", at("2026-01-05T23:00:00Z"), 0))).toBe("2026-01-06T22:30:00.000Z");
  });

  it("weekly: the next such weekday at that time, a week on when it is that day and the time has passed", () => {
    const rule = { kind: "weekly", weekday: "monday", time: "09:00" } as const;
    // 2026-01-05 is a Monday.
    expect(iso(nextDueAfter(rule, "UTC", at("2026-01-05T08:59:00Z"), 0))).toBe("2026-01-05T09:00:00.000Z");
    expect(iso(nextDueAfter(rule, "UTC", at("2026-01-05T09:00:00Z"), 0))).toBe("2026-01-12T09:00:00.000Z");
    const friday = { kind: "weekly", weekday: "friday", time: "18:15" } as const;
    expect(iso(nextDueAfter(friday, "America/New_York", at("2026-01-05T12:00:00Z"), 0))).toBe("2026-01-09T23:15:00.000Z");
  });

  it("every N hours: counted from the anchor as hours pass, so a daylight-saving change does not move it", () => {
    const rule = { kind: "every_hours", hours: 6 } as const;
    const anchor = at("2026-03-07T12:00:00Z");
    expect(iso(nextDueAfter(rule, "America/New_York", at("2026-03-07T11:00:00Z"), anchor))).toBe("2026-03-07T18:00:00.000Z");
    expect(iso(nextDueAfter(rule, "America/New_York", anchor, anchor))).toBe("2026-03-07T18:00:00.000Z");
    // Across New York's spring-forward (2026-03-08 07:00 UTC) the gap stays 6 hours.
    const after = nextDueAfter(rule, "America/New_York", at("2026-03-08T06:59:00Z"), anchor);
    expect(iso(after)).toBe("2026-03-08T12:00:00.000Z");
    expect(nextDueAfter(rule, "America/New_York", after, anchor) - after).toBe(6 * 3_600_000);
  });

  it("daily across daylight-saving changes: the same wall time before and after, a skipped time an hour later, a repeated time once", () => {
    const rule = { kind: "daily", time: "02:30" } as const;
    // New York springs forward on 2026-03-08 at 02:00 EST: 02:30 is never shown, the run is at 03:30 EDT (07:30 UTC).
    expect(iso(nextDueAfter(rule, "America/New_York", at("2026-03-07T08:00:00Z"), 0))).toBe("2026-03-08T07:30:00.000Z");
    // The day before (EST, UTC-5) and the day after (EDT, UTC-4): the wall time holds.
    expect(iso(nextDueAfter(rule, "America/New_York", at("2026-03-06T12:00:00Z"), 0))).toBe("2026-03-07T07:30:00.000Z");
    expect(iso(nextDueAfter(rule, "America/New_York", at("2026-03-08T08:00:00Z"), 0))).toBe("2026-03-09T06:30:00.000Z");
    // Berlin falls back on 2026-10-25 at 03:00 CEST: 02:30 is shown twice; it runs at the first (00:30 UTC), once.
    const first = nextDueAfter(rule, "Europe/Berlin", at("2026-10-24T12:00:00Z"), 0);
    expect(iso(first)).toBe("2026-10-25T00:30:00.000Z");
    expect(iso(nextDueAfter(rule, "Europe/Berlin", first, 0))).toBe("2026-10-26T01:30:00.000Z");
    // Weekly over the same change: 09:00 Berlin is 07:00 UTC in summer, 08:00 UTC in winter.
    const sunday = { kind: "weekly", weekday: "sunday", time: "09:00" } as const;
    expect(iso(nextDueAfter(sunday, "Europe/Berlin", at("2026-10-19T00:00:00Z"), 0))).toBe("2026-10-25T08:00:00.000Z");
    expect(iso(nextDueAfter(sunday, "Europe/Berlin", at("2026-10-12T00:00:00Z"), 0))).toBe("2026-10-18T07:00:00.000Z");
  });

  it("reads a wall time in a zone as the instant its clock shows it", () => {
    expect(iso(instantOfWallTime({ year: 2026, month: 7, day: 1, hour: 12, minute: 0 }, "Europe/Berlin"))).toBe("2026-07-01T10:00:00.000Z");
    expect(iso(instantOfWallTime({ year: 2026, month: 3, day: 29, hour: 2, minute: 30 }, "Europe/Berlin"))).toBe("2026-03-29T01:30:00.000Z");
    expect(iso(instantOfWallTime({ year: 2026, month: 11, day: 1, hour: 1, minute: 30 }, "America/New_York"))).toBe("2026-11-01T05:30:00.000Z");
  });
});

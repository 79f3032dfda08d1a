import { describe, expect, it } from "vitest";
import { expiresAtFor, GRANT_DURATIONS } from "./grant-view";

describe("how long an Always allow lasts (issue #33)", () => {
  const now = new Date("2026-03-28T22:30:00.000Z");

  it("gives no expiry until the person revokes it", () => {
    expect(expiresAtFor("until_revoked", now)).toBeUndefined();
  });

  it("ends a day, a week or 30 days after the choice, in UTC, across a clock change", () => {
    expect(expiresAtFor("day", now)).toBe("2026-03-29T22:30:00.000Z");
    expect(expiresAtFor("week", now)).toBe("2026-04-04T22:30:00.000Z");
    expect(expiresAtFor("month", now)).toBe("2026-04-27T22:30:00.000Z");
  });

  it("offers each choice once, the default first", () => {
    expect(GRANT_DURATIONS.map((choice) => choice.value)).toEqual(["until_revoked", "day", "week", "month"]);
  });
});

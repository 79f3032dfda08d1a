import { assertNever } from "../../../shared/common/assert-never";
import { DAY_MS, HOUR_MS } from "../../../shared/common/durations";
import { WEEKDAYS, type ScheduleRule } from "../../../shared/execution/run-schedules";

interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall clock of `zone` at an instant. */
function wallTimeAt(ms: number, zone: string): WallTime {
  let format = formatters.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
    });
    formatters.set(zone, format);
  }
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(format.formatToParts(ms).find((entry) => entry.type === type)?.value);
  return { year: part("year"), month: part("month"), day: part("day"), hour: part("hour"), minute: part("minute") };
}

/** How far `zone` is ahead of UTC at an instant, in ms (whole minutes). */
function offsetAt(ms: number, zone: string): number {
  const wall = wallTimeAt(ms, zone);
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute) - Math.floor(ms / 60_000) * 60_000;
}

const sameWallTime = (a: WallTime, b: WallTime) => a.year === b.year && a.month === b.month && a.day === b.day && a.hour === b.hour && a.minute === b.minute;

/**
 * The instant `zone`'s clock shows this wall time. A time shown twice (a fall-back) is its first
 * showing; a time never shown (a spring-forward skips it) is the instant the clock would have
 * shown it had it not jumped, which the clock shows as that time plus the jump (02:30 → 03:30).
 */
export function instantOfWallTime(wall: WallTime, zone: string): number {
  const asIfUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  // The zone's offsets a day either side: a wall time has at most these two readings.
  const before = offsetAt(asIfUtc - DAY_MS, zone);
  const after = offsetAt(asIfUtc + DAY_MS, zone);
  const candidates = [...new Set([before, after])].map((offset) => asIfUtc - offset).sort((a, b) => a - b);
  const shown = candidates.find((candidate) => sameWallTime(wallTimeAt(candidate, zone), wall));
  return shown ?? asIfUtc - before;
}

/** Monday 0 … Sunday 6, as `WEEKDAYS` orders them. */
const weekdayIndexOf = (year: number, month: number, day: number) => (new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7;

/**
 * The first instant strictly after `afterMs` at which a schedule with this rule is due. Wall-clock
 * rules (`daily`, `weekly`) are read in `zone`; `every_hours` counts from `anchorMs`.
 */
export function nextDueAfter(rule: ScheduleRule, zone: string, afterMs: number, anchorMs: number): number {
  switch (rule.kind) {
    case "every_hours": {
      const period = rule.hours * HOUR_MS;
      if (afterMs < anchorMs) return anchorMs + period;
      return anchorMs + (Math.floor((afterMs - anchorMs) / period) + 1) * period;
    }
    case "daily":
    case "weekly": {
      const [hour, minute] = rule.time.split(":").map(Number) as [number, number];
      const today = wallTimeAt(afterMs, zone);
      // Eight days cover every weekday once past today's slot.
      for (let offset = 0; offset <= 8; offset += 1) {
        const date = new Date(Date.UTC(today.year, today.month - 1, today.day + offset));
        const wall = { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour, minute };
        if (rule.kind === "weekly" && WEEKDAYS[weekdayIndexOf(wall.year, wall.month, wall.day)] !== rule.weekday) continue;
        const due = instantOfWallTime(wall, zone);
        if (due > afterMs) return due;
      }
      throw new Error("no due time within eight days");
    }
    default:
      return assertNever(rule);
  }
}

import type { Ability } from "./skills-catalog.svelte";

/** How the Skills card says what it knows of an ability's last validation. */
export interface ValidationLine {
  /** `passed`, `partial`, `failed`, `cancelled`, or `none` (never validated here). */
  tone: NonNullable<Ability["last_validation_result"]> | "none";
  /** "validated 24 Nov, passed", or what is true instead ("not validated here (bundled with the assistant)"). */
  text: string | undefined;
  /** The moment in full, for the `<time>` element's title. */
  at?: string;
}

export interface DateWords {
  /** The person's locale (the browser's by default). */
  locale?: string | undefined;
  timeZone?: string | undefined;
  /** The year is said only when it is not this one. */
  now?: Date;
}

/** "24 Nov" this year, "24 Nov 2025" before; in the person's locale and time zone. */
export function shortDate(iso: string, words: DateWords = {}): string {
  const date = new Date(iso);
  const now = words.now ?? new Date();
  const zone = words.timeZone === undefined ? {} : { timeZone: words.timeZone };
  const yearOf = (value: Date) => new Intl.DateTimeFormat("en", { year: "numeric", ...zone }).format(value);
  const sameYear = yearOf(date) === yearOf(now);
  return new Intl.DateTimeFormat(words.locale, { day: "numeric", month: "short", ...(sameYear ? {} : { year: "numeric" }), ...zone }).format(date);
}

const VERDICT: Record<NonNullable<Ability["last_validation_result"]>, string> = {
  passed: "passed",
  // A validation whose rehearsal or checkpoints could not all run is not a pass (desktop routines, no browser).
  partial: "partly checked (some checks could not run)",
  failed: "failed",
  cancelled: "cancelled before it finished",
};

/**
 * §0C.11A `last_validated_at` and how that validation ended, as the Skills card words it. An
 * ability without one says so rather than nothing; the assistant's own skills (its folders, or
 * bundled with it) are neither installed nor validated by this agent, and the card says that.
 */
export function validationLine(ability: Ability, words: DateWords = {}): ValidationLine {
  const result = ability.last_validation_result;
  if (ability.last_validated_at === undefined || result === undefined) {
    switch (ability.source) {
      case "native":
        return {
          tone: "none",
          text: ability.family === "bundled" ? "not validated here (bundled with the assistant)" : "not validated here (the assistant's own skill)",
        };
      case "imported":
        return { tone: "none", text: "not validated here (imported)" };
      default:
        // True of an install nobody validated, and of one recorded before the agent kept validations.
        return { tone: "none", text: "no validation on record" };
    }
  }
  const at = new Date(ability.last_validated_at).toLocaleString(words.locale, words.timeZone === undefined ? {} : { timeZone: words.timeZone });
  return { tone: result, text: `validated ${shortDate(ability.last_validated_at, words)}, ${VERDICT[result]}`, at };
}

/**
 * "v0.2.0"; for the assistant's own skills, the version their SKILL.md declares or that it declares
 * none; nothing when the agent does not know an installed version.
 */
export function versionLabel(ability: Ability): string | undefined {
  if (ability.skill_version !== undefined) return `v${ability.skill_version.replace(/^v/i, "")}`;
  return ability.source === "native" ? "no version declared" : undefined;
}

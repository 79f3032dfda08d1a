import { DEFAULT_ACTION_TITLE, showBadge, type BadgeSpec, type BadgeSurface } from "../capture/capture-badge";
import { oneLine } from "./notice-wording";

/**
 * The toolbar badge ASK (issue #33): a run waits for the person's answer, asked outside the side
 * panel. It has its own colour beside ARM (blue), REC (red), II (orange) and RUN (purple).
 *
 * Precedence: the observation banner (ARM / REC / II) is never hidden — it says the person is
 * being recorded — so while it shows, ASK goes into its tooltip (the notification asks anyway).
 * ASK is shown over RUN: a run in a lent tab that waits is doing nothing until the person answers.
 */
export const ASK_BADGE_COLOR = "#00796b";
const OBSERVATION_TEXTS = new Set(["ARM", "REC", "II"]);

/** What ASK says in its tooltip: which abilities wait. */
export function askBadge(abilities: readonly string[]): BadgeSpec | null {
  if (abilities.length === 0) return null;
  const names = abilities.length === 1 ? `${abilities[0]} waits` : `${abilities.length} runs wait (${abilities.join(", ")})`;
  return { text: "ASK", color: ASK_BADGE_COLOR, title: oneLine(`${DEFAULT_ACTION_TITLE}: ${names} for your answer`, 160) };
}

/** The badge shown, given what the capture and tab-lending code show and what waits. */
export function composeBadge(base: BadgeSpec, asking: BadgeSpec | null): BadgeSpec {
  if (asking === null) return base;
  if (OBSERVATION_TEXTS.has(base.text)) return { ...base, title: `${base.title} · ${asking.title.slice(DEFAULT_ACTION_TITLE.length + 2)}` };
  return asking;
}

export interface LayeredBadge {
  /** Given to the capture mirror and to tab lending instead of `chrome.action`: what they show is the base. */
  surface: BadgeSurface;
  /** What waits for the person now (null: nothing); the badge is drawn again. */
  ask(spec: BadgeSpec | null): Promise<void>;
}

/**
 * One toolbar badge, two writers: the capture mirror and tab lending keep calling `showBadge` as
 * before (their base), and the run notices put ASK over it; Chrome is shown the composition.
 */
export function createLayeredBadge(action: BadgeSurface): LayeredBadge {
  const base: BadgeSpec = { text: "", color: "#d93025", title: DEFAULT_ACTION_TITLE };
  let asking: BadgeSpec | null = null;
  let drawn: Promise<void> = Promise.resolve();
  const draw = (): Promise<void> => {
    const spec = composeBadge({ ...base }, asking);
    drawn = drawn.then(
      () => showBadge(action, spec),
      () => showBadge(action, spec),
    );
    return drawn;
  };
  return {
    surface: {
      async setBadgeBackgroundColor({ color }) {
        base.color = color;
      },
      async setBadgeTextColor() {
        // Always white on our badges (showBadge); drawn with the composition.
      },
      // `showBadge` sets the tooltip, then the text: the badge is drawn once, with the text, so
      // Chrome never shows a new text under the previous state's tooltip.
      setBadgeText({ text }) {
        base.text = text;
        return draw();
      },
      async setTitle({ title }) {
        base.title = title;
      },
    },
    ask(spec) {
      asking = spec;
      return draw();
    },
  };
}

import type { LearnSession } from "../../../shared/learning/sessions/learn-session";
import { watchesThisComputer } from "../../../shared/learning/observed-actions/desktop-detail";
import { CAPTURE_STATES } from "../controls/session-control-availability";

/**
 * The panel's half of §0C.22 rule 2 (R11.2-45): while a session observes, a banner on every tab
 * of the panel says so. These are its words; ObservationBanner.svelte only lays them out.
 */

export type ObservingState = "armed" | "capturing" | "paused";

export const OBSERVING_LABEL: Record<ObservingState, string> = {
  armed: "Ready to record — recording starts with your first action",
  capturing: "Recording",
  paused: "Recording paused",
};

/** The session's state when it observes (armed, capturing, paused); null otherwise. */
export function observingState(session: LearnSession | null): ObservingState | null {
  if (session === null || !CAPTURE_STATES.has(session.state)) return null;
  return session.state as ObservingState;
}

/** What is observed, in words: the sites, this computer, or nothing but the person's own marks. */
export function observedSummary(session: Pick<LearnSession, "target_app_family" | "observation_mode" | "target_app_whitelist">): string {
  if (session.observation_mode === "none") return "Nothing is watched: only the steps and goal you mark.";
  const parts: string[] = [];
  const sites = session.target_app_whitelist;
  if (watchesThisComputer(session)) {
    parts.push("this computer (commands in terminals with the adapter)");
    if (sites.length > 0) parts.push(`and ${sites.join(", ")}`);
  } else {
    parts.push(sites.length === 0 ? "no site" : sites.join(", "));
  }
  return `Watching ${parts.join(" ")}.`;
}

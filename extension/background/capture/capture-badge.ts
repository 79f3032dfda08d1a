import type { CaptureSessionState } from "../../../shared/observation/capture-protocol";
import { isActiveCapture } from "./capture-config";
import { assertNever } from "../../../shared/common/assert-never";

/** The toolbar badge is the observation banner (DESIGN §4): what it shows for one session state. */
export interface BadgeSpec {
  text: string;
  /** Badge background; irrelevant when `text` is empty. */
  color: string;
  title: string;
}

export const DEFAULT_ACTION_TITLE = "Ability Learning";

const ARMED_COLOR = "#1a73e8";
const RECORDING_COLOR = "#d93025";
const PAUSED_COLOR = "#e37400";

/** A session with no site only watches this computer (desktop adapters): the tooltip says so. */
function sitesOf(session: CaptureSessionState): string {
  return session.target_app_whitelist.length === 0 ? "this computer (no website)" : session.target_app_whitelist.join(", ");
}

export function badgeForSession(session: CaptureSessionState | null): BadgeSpec {
  if (!isActiveCapture(session)) return { text: "", color: RECORDING_COLOR, title: DEFAULT_ACTION_TITLE };
  const sites = sitesOf(session);
  switch (session.state) {
    case "armed":
      return { text: "ARM", color: ARMED_COLOR, title: `${DEFAULT_ACTION_TITLE}: ready to record on ${sites}` };
    case "capturing":
      return { text: "REC", color: RECORDING_COLOR, title: `${DEFAULT_ACTION_TITLE}: recording on ${sites}` };
    case "paused":
      return { text: "II", color: PAUSED_COLOR, title: `${DEFAULT_ACTION_TITLE}: recording paused on ${sites}` };
    default:
      return assertNever(session.state);
  }
}

/** The part of `chrome.action` the badge needs. */
export interface BadgeSurface {
  setBadgeText(details: { text: string }): Promise<void>;
  setBadgeBackgroundColor(details: { color: string }): Promise<void>;
  setBadgeTextColor(details: { color: string }): Promise<void>;
  setTitle(details: { title: string }): Promise<void>;
}

export async function showBadge(action: BadgeSurface, badge: BadgeSpec): Promise<void> {
  if (badge.text !== "") {
    await action.setBadgeBackgroundColor({ color: badge.color });
    await action.setBadgeTextColor({ color: "#ffffff" });
  }
  // The tooltip first: whoever sees the new text (a person, a test) reads the tooltip that goes with it.
  await action.setTitle({ title: badge.title });
  await action.setBadgeText({ text: badge.text });
}

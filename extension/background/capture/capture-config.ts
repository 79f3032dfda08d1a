import type { CaptureSessionState } from "../../../shared/observation/capture-protocol";
import { CaptureConfigSchema, type CaptureConfig } from "../../observation/common/capture-messages";

/** The states in which pages are observed; every other state (or no session) means observe nothing. */
export type ActiveCaptureState = CaptureConfig["state"];

const ACTIVE_STATES: ReadonlySet<string> = new Set<ActiveCaptureState>(["armed", "capturing", "paused"]);

export function isActiveCapture(session: CaptureSessionState | null): session is CaptureSessionState & { state: ActiveCaptureState } {
  return session !== null && ACTIVE_STATES.has(session.state);
}

const TextEntryModeSchema = CaptureConfigSchema.shape.text_entry_mode;

/** `redaction_modes.text_entry` as the agent reports it (§0C.8); anything unknown masks (DESIGN §4). */
export function textEntryModeOf(session: CaptureSessionState): CaptureConfig["text_entry_mode"] {
  const parsed = TextEntryModeSchema.safeParse(session.redaction_modes.text_entry);
  return parsed.success ? parsed.data : "mask_text";
}

/**
 * What the content script on an allowed page is told, or null when it must observe nothing.
 * `allowed_origins` carries the allow-list entries as the agent holds them, so the page checks
 * itself with the same `urlMatchesAllowList` the agent scopes with.
 */
export function captureConfigFor(session: CaptureSessionState | null, hashKey: string | undefined, typedValues: readonly string[] = []): CaptureConfig | null {
  if (!isActiveCapture(session) || hashKey === undefined) return null;
  return CaptureConfigSchema.parse({
    learn_session_id: session.learn_session_id,
    state: session.state,
    text_entry_mode: textEntryModeOf(session),
    hash_key: hashKey,
    allowed_origins: session.target_app_whitelist,
    typed_values: [...typedValues],
  });
}

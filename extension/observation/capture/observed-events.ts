import type { ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import type { CaptureConfig } from "../common/capture-messages";
import type { DomObservation } from "../observers/dom-observer";
import type { HeldEvent, SnapshotHandle } from "./held-events";

/**
 * What the observers saw, as the events the background receives (`ObservedActionEventWithDetail`):
 * a DOM observation (already masked, its strings already scrubbed by the observers) becomes a
 * browser_dom event held until its snapshots are known; a snapshot becomes a browser_snapshot event
 * finished once it is named (held-events.ts).
 */

/** A DOM observation's event, held with the snapshot before it (its after-snapshot comes later). */
export function heldObservation(observation: DomObservation, config: CaptureConfig, eventId: string, before: SnapshotHandle | undefined): HeldEvent {
  return {
    event: observedEvent(observation, config, eventId),
    masked: observation.maskedField === undefined ? undefined : { later: observation.maskedField, done: false, value: undefined, now: observation.maskedNow },
    finishLabel: typeof observation.label === "function" ? observation.label : undefined,
    before,
    after: undefined,
    isSnapshotEvent: false,
  };
}

function observedEvent(observation: DomObservation, config: CaptureConfig, eventId: string): ObservedActionEventWithDetail {
  const { target } = observation;
  return {
    event_id: eventId,
    learn_session_id: config.learn_session_id,
    adapter_kind: "browser_dom",
    app_family: "browser",
    window_title: observation.pageTitle,
    action_label: typeof observation.label === "string" ? observation.label : "",
    caused_state_change: false,
    redaction_mode: config.text_entry_mode,
    created_at: observation.createdAt,
    schema_version: 1,
    browser_detail: {
      page_url: observation.pageUrl,
      page_title: observation.pageTitle,
      target_role: target?.role,
      target_name: target?.name || undefined,
      target_tag: target?.tag,
      input_type: target?.inputType,
      selectors: target?.selectors ?? [],
      frame_path: target && target.framePath.length > 0 ? target.framePath : undefined,
      dom_event_kind: observation.kind,
    },
  };
}

/** A snapshot's event: its label, title and URL are filled in once the snapshot is named, if the page changed. */
export function heldSnapshot(config: CaptureConfig, eventId: string, before: SnapshotHandle | undefined, after: SnapshotHandle): HeldEvent {
  return {
    event: {
      event_id: eventId,
      learn_session_id: config.learn_session_id,
      adapter_kind: "browser_snapshot",
      app_family: "browser",
      action_label: "",
      caused_state_change: true,
      redaction_mode: config.text_entry_mode,
      created_at: new Date().toISOString(),
      schema_version: 1,
    },
    masked: undefined,
    finishLabel: undefined,
    before,
    after,
    isSnapshotEvent: true,
  };
}

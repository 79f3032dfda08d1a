import type { DomEventKind, ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";

/** What the timeline says in place of a typed value: always this word, never the value (DESIGN §4). */
export const MASKED_TEXT = "masked";

/** One readable step of the live timeline. Built only from names and kinds, never from values. */
export interface TimelineStep {
  event_id: string;
  /** What a person would call the step (the event's accessible-name label). */
  label: string;
  kind: string;
  /** Where: page title and site (host only: a query string can carry tokens), or window/app. */
  where?: string;
  /**
   * A field's value as the timeline shows it: "masked" whenever the page masked it. A value kept
   * with the user's consent (`redaction_mode = none`) is still not shown here: the panel is no
   * place to read back what was typed.
   */
  field?: string;
  /** A snapshot of the page was kept with the step (its summary: the page it shows). */
  snapshot?: string;
  causedChange: boolean;
  excluded: boolean;
  at: string;
  /** A terminal command's end: "exited with code 2" — a failed command is worth seeing before it becomes a checkpoint. */
  outcome?: string;
  /** Whether that command failed (a non-zero exit code). */
  failed?: boolean;
}

const KIND_LABEL: Record<DomEventKind, string> = {
  click: "Click",
  change: "Edit",
  submit: "Submit",
  keydown: "Key",
  navigation: "Go to page",
  file_select: "Choose file",
  select: "Choose option",
};

function hostOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.host : undefined;
  } catch {
    return undefined;
  }
}

function fieldText(event: ObservedActionEventWithDetail): string | undefined {
  const field = event.browser_detail?.masked_field;
  if (field === undefined) return undefined;
  if (field.masked) return MASKED_TEXT;
  if (field.value !== undefined) return "typed text kept with your consent (not shown)";
  return MASKED_TEXT;
}

export function timelineStep(event: ObservedActionEventWithDetail, excluded: ReadonlySet<string>): TimelineStep {
  const browser = event.browser_detail;
  const desktop = event.desktop_detail;
  const host = browser === undefined ? undefined : hostOf(browser.page_url);
  const where =
    browser !== undefined
      ? [browser.page_title, host].filter((part): part is string => part !== undefined && part !== "").join(" · ")
      : [event.window_title, event.app_family].filter((part): part is string => part !== undefined && part !== "").join(" · ");
  const snapshotRef = [event.after_state_ref, event.before_state_ref].find((ref) => ref?.startsWith("snapshot:"));
  const step: TimelineStep = {
    event_id: event.event_id,
    label: event.action_label,
    kind:
      browser?.dom_event_kind !== undefined
        ? KIND_LABEL[browser.dom_event_kind]
        : desktop !== undefined
          ? "Command"
          : event.adapter_kind === "browser_snapshot"
            ? "Page"
            : "Action",
    causedChange: event.caused_state_change,
    excluded: excluded.has(event.event_id),
    at: event.created_at,
  };
  if (where !== "") step.where = where;
  const field = fieldText(event);
  if (field !== undefined) step.field = field;
  if (desktop?.exit_code !== undefined) {
    step.outcome = desktop.exit_code === 0 ? "exited with code 0" : `failed: exited with code ${desktop.exit_code}`;
    step.failed = desktop.exit_code !== 0;
  }
  if (snapshotRef !== undefined) step.snapshot = browser?.page_title !== undefined ? `Page snapshot: ${browser.page_title}` : "Page snapshot kept";
  return step;
}

import type { WorkflowBoundary } from "../../../shared/learning/sessions/boundary";
import type { ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import { tidyName } from "../../../shared/observation/name-tidying";
import { desktopAction, dropFailedAttempts } from "./desktop-steps";

/** What one normalized step did, in the terms a skill is written in. */
export type StepAction = "click" | "fill" | "select" | "toggle" | "submit" | "press" | "navigate" | "upload" | "command" | "launch";

/** One meaningful step of a demonstration, after noise is dropped and keystrokes are merged (DESIGN §6.1). */
export interface NormalizedStep {
  step_id: string;
  action: StepAction;
  /** The human label: a mark-step label when the user gave one, else the observed action label. */
  label: string;
  user_labelled: boolean;
  target_role?: string | undefined;
  target_name?: string | undefined;
  target_tag?: string | undefined;
  input_type?: string | undefined;
  page_url?: string | undefined;
  page_title?: string | undefined;
  selectors: string[][];
  frame_path?: number[] | undefined;
  /** For a masked text entry: how the value was masked (a hash lets equal values be one parameter). */
  masked_value?: { length_class?: string | undefined; value_hash?: string | undefined; reason?: string | undefined } | undefined;
  /** The entered value's keyed reference: an address that carried the value names it so (shared/observation/url-rule.ts). */
  value_ref?: string | undefined;
  /** Present only when the session consented to recording text (`none`); never written to SKILL.md. */
  consented_value?: string | undefined;
  before_state_ref?: string | undefined;
  after_state_ref?: string | undefined;
  caused_state_change: boolean;
  app_family?: string | undefined;
  event_ids: string[];
  created_at: string;
}

export interface NormalizeInput {
  events: readonly ObservedActionEventWithDetail[];
  boundaries: readonly WorkflowBoundary[];
  /** `event:<id>` refs set by trim (R11.2-10); `boundary:<id>` refs mean "the capture's own edge". */
  start_boundary_ref?: string | undefined;
  stop_boundary_ref?: string | undefined;
}

export interface NormalizedTrace {
  steps: NormalizedStep[];
  goal?: string | undefined;
  /** Page titles in the order they were visited, for naming and checkpoints. */
  pages: Array<{ url: string; title?: string | undefined }>;
  dropped: { noise: number; outside_boundaries: number; merged: number };
}

const ACTION_BY_DOM: Record<string, StepAction> = {
  click: "click",
  change: "fill",
  select: "select",
  submit: "submit",
  keydown: "press",
  navigation: "navigate",
  file_select: "upload",
};

function actionOf(event: ObservedActionEventWithDetail): StepAction | undefined {
  if (event.adapter_kind !== "browser_dom") return desktopAction(event);
  const kind = event.browser_detail?.dom_event_kind;
  if (kind === undefined) return "click";
  const action = ACTION_BY_DOM[kind];
  if (action === "fill" && /^(Check|Uncheck) /.test(event.action_label)) return "toggle";
  if (action === "fill" && /^Select /.test(event.action_label)) return "select";
  return action;
}

function sameTarget(a: NormalizedStep, b: NormalizedStep): boolean {
  if (a.selectors.length === 0 || b.selectors.length === 0) return a.target_name !== undefined && a.target_name === b.target_name;
  return JSON.stringify(a.selectors[0]) === JSON.stringify(b.selectors[0]) && a.page_url === b.page_url;
}

/** What a label says for a control whose name was only a key hint or an icon. */
function unnamed(action: StepAction, role: string | undefined): string {
  if (role === "searchbox") return "the search box";
  if (action === "fill") return "the text field";
  return `the ${role === undefined || role === "generic" ? "control" : role}`;
}

/**
 * The control's name as a person would say it (shared/observation/name-tidying.ts), in its label
 * too: "Fill '[F]'" becomes "Fill the search box", "Click 'Insert Insert'" becomes "Click 'Insert'".
 */
function tidyTarget(step: NormalizedStep): void {
  const raw = step.target_name;
  if (raw === undefined) return;
  const tidy = tidyName(raw);
  if (tidy === raw) return;
  step.label = step.label.split(`'${raw}'`).join(tidy === "" ? unnamed(step.action, step.target_role) : `'${tidy}'`);
  step.target_name = tidy === "" ? undefined : tidy;
}

function refEventId(ref: string | undefined): string | undefined {
  return ref?.startsWith("event:") ? ref.slice("event:".length) : undefined;
}

type TraceEvent = NormalizeInput["events"][number];
type Dropped = NormalizedTrace["dropped"];

/** The events between the session's boundaries, in time order, without a terminal's slips; what was left out. */
function boundaryWindow(input: NormalizeInput): { window: TraceEvent[]; dropped: Dropped } {
  const ordered = [...input.events].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  const startId = refEventId(input.start_boundary_ref);
  const stopId = refEventId(input.stop_boundary_ref);
  const startIndex =
    startId === undefined
      ? 0
      : Math.max(
          0,
          ordered.findIndex((event) => event.event_id === startId),
        );
  const stopFound = stopId === undefined ? -1 : ordered.findIndex((event) => event.event_id === stopId);
  const stopIndex = stopFound < 0 ? ordered.length - 1 : stopFound;
  const dropped = { noise: 0, outside_boundaries: startIndex + (ordered.length - 1 - stopIndex), merged: 0 };
  // A terminal's slips (a mistyped program, a failed command run again at once) are not steps.
  const { kept: window, dropped: slips } = dropFailedAttempts(ordered.slice(startIndex, stopIndex + 1));
  dropped.noise += slips;
  return { window, dropped };
}

/** One event as a step (its id is given once the steps are final). */
function stepOf(event: TraceEvent, action: NormalizedStep["action"]): NormalizedStep {
  const detail = event.browser_detail;
  const step: NormalizedStep = {
    step_id: "",
    action,
    label: event.action_label,
    user_labelled: false,
    target_role: detail?.target_role,
    target_name: detail?.target_name,
    target_tag: detail?.target_tag,
    input_type: detail?.input_type,
    page_url: detail?.page_url,
    page_title: detail?.page_title ?? event.window_title,
    selectors: detail?.selectors ?? [],
    frame_path: detail?.frame_path,
    masked_value:
      detail?.masked_field?.masked === true
        ? { length_class: detail.masked_field.length_class, value_hash: detail.masked_field.value_hash, reason: detail.masked_field.reason }
        : undefined,
    value_ref: detail?.masked_field?.value_ref,
    consented_value: detail?.masked_field?.masked === false ? detail.masked_field.value : undefined,
    before_state_ref: event.before_state_ref,
    after_state_ref: event.after_state_ref,
    caused_state_change: event.caused_state_change,
    app_family: event.app_family,
    event_ids: [event.event_id],
    created_at: event.created_at,
  };
  if (event.adapter_kind === "browser_dom") tidyTarget(step);
  return step;
}

/** Folds the step into the one before when it is part of it; true when it was folded. */
function foldIntoPrevious(steps: NormalizedStep[], step: NormalizedStep, dropped: Dropped): boolean {
  const previous = steps.at(-1);
  if (previous === undefined) return false;
  const { action } = step;
  if (action === "submit" && (previous.action === "click" || previous.action === "press") && previous.page_url === step.page_url) {
    // A form sent by its button (or Enter) is that click's consequence, not a second step.
    previous.caused_state_change = previous.caused_state_change || step.caused_state_change;
    previous.after_state_ref = step.after_state_ref ?? previous.after_state_ref;
    previous.event_ids.push(...step.event_ids);
    dropped.merged += 1;
    return true;
  }
  if (action === "fill" && previous.action === "fill" && sameTarget(previous, step)) {
    // Several edits of one field are one step: the last value is the one that counted.
    steps[steps.length - 1] = { ...step, event_ids: [...previous.event_ids, ...step.event_ids], before_state_ref: previous.before_state_ref };
    dropped.merged += 1;
    return true;
  }
  if (action === "fill" && previous.action === "click" && !previous.caused_state_change && sameTarget(previous, step)) {
    // Clicking into a field only to type in it is part of filling it.
    steps[steps.length - 1] = { ...step, event_ids: [...previous.event_ids, ...step.event_ids], before_state_ref: previous.before_state_ref };
    dropped.noise += 1;
    return true;
  }
  return false;
}

/** Mark-step labels name the step they point at, or else the first step after the mark. */
function applyMarks(steps: readonly NormalizedStep[], boundaries: NormalizeInput["boundaries"]): void {
  const marks = boundaries.filter((boundary) => boundary.kind === "mark_step" && boundary.label !== undefined);
  for (const mark of marks) {
    const label = (mark.label ?? "").replace(/^(action|guard|verification|decision|other): /, "");
    const target =
      (mark.source_event_id !== undefined ? steps.find((step) => step.event_ids.includes(mark.source_event_id as string)) : undefined) ??
      steps.find((step) => step.created_at >= mark.created_at && !step.user_labelled);
    if (target !== undefined && label.length > 0) {
      target.label = label;
      target.user_labelled = true;
    }
  }
}

/** Notes a page the demonstration went through; the same page again only updates its title. */
function notePage(pages: NormalizedTrace["pages"], url: string | undefined, title: string | undefined): void {
  if (url === undefined) return;
  const last = pages.at(-1);
  if (last?.url === url) {
    if (title !== undefined) last.title = title;
    return;
  }
  pages.push({ url, title });
}

/**
 * DESIGN §6.1: keep what the user did within the session's boundaries, in order; drop snapshots
 * (kept as state) and page loads that merely follow an action, merge repeated edits of one field
 * into the last, drop a click that only focused the field that is then filled, and let mark-step
 * labels name the step that follows them.
 */
export function normalizeTrace(input: NormalizeInput): NormalizedTrace {
  const { window, dropped } = boundaryWindow(input);
  const pages: NormalizedTrace["pages"] = [];
  const steps: NormalizedStep[] = [];
  for (const event of window) {
    const detail = event.browser_detail;
    notePage(pages, detail?.page_url, detail?.page_title ?? event.window_title);
    const action = actionOf(event);
    if (action === undefined) {
      dropped.noise += 1;
      continue;
    }
    const previous = steps.at(-1);
    // A page load right after an action is that action's consequence, not a step of its own.
    if (action === "navigate" && previous !== undefined && previous.action !== "navigate") {
      previous.caused_state_change = true;
      previous.after_state_ref = event.after_state_ref ?? previous.after_state_ref;
      previous.event_ids.push(event.event_id);
      dropped.noise += 1;
      continue;
    }
    const step = stepOf(event, action);
    if (!foldIntoPrevious(steps, step, dropped)) steps.push(step);
  }
  applyMarks(steps, input.boundaries);
  steps.forEach((step, index) => {
    step.step_id = `s${index + 1}`;
  });
  const goal = [...input.boundaries].reverse().find((boundary) => boundary.kind === "mark_goal")?.label;
  return { steps, goal, pages, dropped };
}

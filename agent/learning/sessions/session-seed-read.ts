import { randomUUID } from "node:crypto";
import { z } from "zod";
import { TERMINAL_RUN_STATES, type RunRecord } from "../../../shared/execution/run-contract";
import { WorkflowBoundarySchema } from "../../../shared/learning/sessions/boundary";
import { ObservedActionEventWithDetailSchema, type ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import { LearningReceiptSchema } from "../../../shared/learning/sessions/receipts";
import { TraceSeedSummarySchema } from "../../../shared/learning/sessions/trace-seed";
import { PageSnapshotSchema, type PageSnapshot } from "../../../shared/observation/page-snapshot";
import type { RecorderStep, RecorderFlow } from "../../../shared/execution/recorder-flow";
import { AppError } from "../../errors/app-error";
import { MemoryPaths } from "../../memory/memory-paths";
import type { MemoryStore } from "../../memory/memory-store";
import { readExclusions } from "./observation-exclusions";
import type { SessionCore } from "./session-core";
import type { PreparedSeed, SeedSources } from "./session-seed";

/** Reading a source trace for Learn From This: a session's own events, a run's steps, or what a receipt names. */

const CheckpointReceiptRefSchema = z
  .object({ receipt_id: z.string(), dispatch_id: z.string().optional(), learn_session_id: z.string().optional() })
  .passthrough();

/** Hosts of the pages a trace passed through (http and https only). */
function hostsOf(urls: readonly string[]): string[] {
  const hosts = new Set<string>();
  for (const url of urls) {
    try {
      const parsed = new URL(url);
      if (parsed.protocol === "http:" || parsed.protocol === "https:") hosts.add(parsed.host);
    } catch {
      // Not a URL: names no site.
    }
  }
  return [...hosts].slice(0, 20);
}

/**
 * DESIGN §4: a seed never carries a typed value. A field edit recorded with the user's consent
 * (`none`) keeps only that it was an edit, and how long, in the new session.
 */
function withoutValue(event: ObservedActionEventWithDetail): ObservedActionEventWithDetail {
  const field = event.browser_detail?.masked_field;
  if (field === undefined || field.value === undefined) return event;
  const length = field.value.length;
  const length_class = length === 0 ? "empty" : length <= 8 ? "short" : length <= 40 ? "medium" : "long";
  return {
    ...event,
    redaction_mode: "mask_text",
    browser_detail: { ...event.browser_detail!, masked_field: { masked: true, length_class, reason: "seeded: the value is not taken along" } },
  };
}

/** The name a Recorder step's element is known by: its relocation hint, then an aria or text selector. */
function targetNameOf(step: Extract<RecorderStep, { selectors: string[][] }>): string | undefined {
  if ("hint" in step && step.hint?.name !== undefined) return step.hint.name;
  for (const parts of step.selectors) {
    const match = /^(?:aria|text)\/(.+)$/.exec(parts[0] ?? "");
    if (match !== null && parts.length === 1) return match[1];
  }
  return undefined;
}

/**
 * A run's trace as observed events: for each step the run did (passed), the Recorder steps of the
 * skill's flow that make it, with their selectors and the page they were on. Field edits are masked
 * (the flow holds `{{parameter}}` placeholders, never values; a run stores no input value).
 */
export function eventsOfRun(run: RunRecord, flow: RecorderFlow): { events: ObservedActionEventWithDetail[]; pages: string[] } {
  const done = new Set(run.steps.filter((step) => step.result === "passed").map((step) => step.step_id));
  const events: ObservedActionEventWithDetail[] = [];
  const pages: string[] = [];
  const labelOf = new Map(run.steps.map((step) => [step.step_id, step.label]));
  let url: string | undefined;
  const start = Date.parse(run.started_at);
  const base = (label: string, detail: NonNullable<ObservedActionEventWithDetail["browser_detail"]>, stateChange: boolean): ObservedActionEventWithDetail => ({
    event_id: randomUUID(),
    learn_session_id: "00000000-0000-4000-8000-000000000000",
    adapter_kind: "browser_dom",
    app_family: "browser",
    action_label: label.slice(0, 240),
    target_ref: `run:${run.dispatch_id}`.slice(0, 240),
    caused_state_change: stateChange,
    redaction_mode: "mask_text",
    created_at: new Date(start + events.length).toISOString(),
    schema_version: 1,
    browser_detail: detail,
  });
  flow.steps.forEach((step, index) => {
    const stepId = flow.step_ids[index] ?? null;
    if (step.type === "navigate") {
      url = step.url;
      pages.push(step.url);
      // The opening page (a set-up step) is where the trace begins: an observed page load.
      if (stepId === null || done.has(stepId))
        events.push(base(`Open '${step.url}'`, { page_url: step.url, selectors: [], dom_event_kind: "navigation" }, true));
      return;
    }
    if (stepId === null || !done.has(stepId) || url === undefined) return;
    const label = labelOf.get(stepId) ?? stepId;
    switch (step.type) {
      case "click":
      case "change": {
        const name = targetNameOf(step);
        const detail = {
          page_url: url,
          selectors: step.selectors.slice(0, 12),
          ...(step.frame === undefined ? {} : { frame_path: step.frame }),
          ...(step.hint?.role === undefined ? {} : { target_role: step.hint.role }),
          ...(name === undefined ? {} : { target_name: name.slice(0, 240) }),
          dom_event_kind: step.type === "click" ? ("click" as const) : ("change" as const),
          ...(step.type === "change"
            ? { masked_field: { masked: true, length_class: "medium" as const, reason: "seeded from a run: values are never kept" } }
            : {}),
        };
        const action = step.type === "click" ? `Click '${name ?? label}'` : `Fill '${name ?? label}'`;
        events.push(base(action, detail, false));
        return;
      }
      case "keyDown":
        events.push(base(`Press ${step.key}`, { page_url: url, selectors: [], dom_event_kind: "keydown" }, false));
        return;
      case "keyUp":
      case "setViewport":
      case "waitForElement":
        return;
      default: {
        const unreachable: never = step;
        throw new Error(`unknown Recorder step ${JSON.stringify(unreachable)}`);
      }
    }
  });
  return { events, pages };
}

/** The page snapshots the events refer to (`snapshot:<sha>`), those still readable. */
export async function readSnapshots(
  memory: MemoryStore,
  sessionId: string,
  events: readonly ObservedActionEventWithDetail[],
): Promise<Map<string, PageSnapshot>> {
  const snapshots = new Map<string, PageSnapshot>();
  for (const sha of new Set(
    events
      .flatMap((event) => [event.before_state_ref, event.after_state_ref])
      .filter((ref): ref is string => ref?.startsWith("snapshot:") === true)
      .map((ref) => ref.slice(9)),
  )) {
    const snapshot = await memory.readJson(MemoryPaths.observationSnapshot(sessionId, sha), PageSnapshotSchema).catch(() => undefined);
    if (snapshot !== undefined) snapshots.set(sha, snapshot);
  }
  return snapshots;
}

/** The pages the events passed through, in order, each once per visit, with the first title seen. */
function pagesOf(events: readonly ObservedActionEventWithDetail[]): Array<{ url: string; title?: string }> {
  const pages: Array<{ url: string; title?: string }> = [];
  for (const event of events) {
    const url = event.browser_detail?.page_url;
    if (url === undefined) continue;
    const title = event.browser_detail?.page_title ?? event.window_title;
    const last = pages.at(-1);
    if (last?.url === url) {
      if (last.title === undefined && title !== undefined) last.title = title.slice(0, 200);
    } else pages.push({ url: url.slice(0, 2048), ...(title === undefined ? {} : { title: title.slice(0, 200) }) });
  }
  return pages;
}

/** What reading a source trace needs: the session core, and where runs are read from (once set). */
export interface SeedContext {
  core: SessionCore;
  sources: SeedSources | undefined;
}

export async function fromSession(context: SeedContext, sessionId: string, title?: string): Promise<PreparedSeed> {
  const { deps, sessions, now } = context.core;
  const source = sessions.get(sessionId);
  if (source === undefined) throw new AppError("LEARN_SESSION_NOT_FOUND", `No learning session ${sessionId} to learn from.`);
  if (["idle", "armed", "capturing", "paused"].includes(source.state)) {
    throw new AppError("INVALID_LEARN_STATE_TRANSITION", "That session is still observing: stop it before learning from it.");
  }
  const excluded = new Set(await readExclusions(deps.memory, sessionId));
  const all = (await deps.memory.readJsonl(MemoryPaths.observationEvents(sessionId), ObservedActionEventWithDetailSchema)).filter(
    (event) => !excluded.has(event.event_id),
  );
  const ordered = [...all].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  // The session's own trim (R11.2-10): only what lies within its start and stop.
  const cut = (ref: string | undefined) => (ref?.startsWith("event:") ? ordered.findIndex((event) => event.event_id === ref.slice(6)) : -1);
  const from = Math.max(0, cut(source.start_boundary_ref));
  const to = cut(source.stop_boundary_ref);
  const events = ordered.slice(from, to < 0 ? undefined : to + 1).map(withoutValue);
  if (!events.some((event) => event.adapter_kind !== "browser_snapshot")) {
    throw new AppError("INSUFFICIENT_TRACES", "That session has no observed steps to learn from (nothing was recorded, or its observations were purged).");
  }
  const snapshots = await readSnapshots(deps.memory, sessionId, events);
  const goal = (await deps.memory.readJsonl(MemoryPaths.boundaries, WorkflowBoundarySchema))
    .filter((boundary) => boundary.learn_session_id === sessionId && boundary.kind === "mark_goal")
    .at(-1)?.label;
  const urls = events.flatMap((event) => (event.browser_detail?.page_url === undefined ? [] : [event.browser_detail.page_url]));
  const pages = pagesOf(events);
  const summary = TraceSeedSummarySchema.parse({
    source: { kind: "learn_session", learn_session_id: sessionId },
    title: (title ?? `Session of ${source.created_at.slice(0, 16).replace("T", " ")}${goal === undefined ? "" : `: ${goal}`}`).slice(0, 240),
    steps: events
      .filter((event) => event.adapter_kind !== "browser_snapshot")
      .map((event) => event.action_label.slice(0, 240))
      .slice(0, 200),
    pages: pages.slice(0, 50),
    sites: [...new Set([...source.target_app_whitelist.map((site) => site.slice(0, 160)), ...hostsOf(urls)])].slice(0, 20),
    checkpoints: [],
    seeded_at: now().toISOString(),
    schema_version: 1,
  });
  return { summary, events, snapshots };
}

export async function fromRun(context: SeedContext, dispatchId: string): Promise<PreparedSeed> {
  const { now } = context.core;
  const sources = context.sources;
  const run = await sources?.readRun(dispatchId);
  if (run === undefined) throw new AppError("RUN_NOT_FOUND", `No run ${dispatchId.slice(0, 200)} to learn from.`);
  if (!TERMINAL_RUN_STATES.has(run.state)) throw new AppError("RUN_NOT_FINISHED", `The run is still ${run.state}: learn from it once it has ended.`);
  const flow = await sources?.installedFlow(run.ability_id);
  if (flow === undefined)
    throw new AppError("ABILITY_NOT_FOUND", `The skill that run was of (${run.ability_id}) has no recorded flow any more: there is no trace to learn from.`);
  const { events, pages } = eventsOfRun(run, flow);
  const failedStep = run.steps.find((step) => step.result === "failed");
  const summary = TraceSeedSummarySchema.parse({
    source: { kind: "run", dispatch_id: dispatchId },
    title: `${run.state === "succeeded" ? "Run" : run.state === "failed" ? "Failed run" : "Stopped run"} of ${run.ability_title}`.slice(0, 240),
    ability_id: run.ability_id,
    steps: run.steps
      .filter((step) => step.result === "passed" && !step.step_id.startsWith("setup-"))
      .map((step) => step.label.slice(0, 240))
      .slice(0, 200),
    pages: [...new Set([...pages, ...(run.failure?.page_seen === undefined ? [] : [run.failure.page_seen.url])])].slice(0, 50).map((url) => ({
      url: url.slice(0, 2048),
      ...(run.failure?.page_seen?.url === url && run.failure.page_seen.title !== "" ? { title: run.failure.page_seen.title.slice(0, 200) } : {}),
    })),
    sites: hostsOf(pages),
    checkpoints: run.checkpoints
      .filter((checkpoint) => checkpoint.status !== "skipped")
      .map((checkpoint) => ({
        goal: checkpoint.goal,
        status: checkpoint.status === "reached" ? "reached" : checkpoint.status === "failed" ? "failed" : "not_reached",
      })),
    ...(run.failure === undefined
      ? {}
      : { stopped_at: { ...(failedStep === undefined ? {} : { step_label: failedStep.label }), message: run.failure.message } }),
    seeded_at: now().toISOString(),
    schema_version: 1,
  });
  return { summary, events, snapshots: new Map() };
}

export async function fromReceipt(context: SeedContext, receiptId: string): Promise<PreparedSeed> {
  const { deps } = context.core;
  const learning = (await deps.memory.readJsonlContaining(MemoryPaths.receipts, LearningReceiptSchema, receiptId)).find(
    (receipt) => receipt.receipt_id === receiptId,
  );
  if (learning?.learn_session_id !== undefined) {
    const prepared = await fromSession(context, learning.learn_session_id);
    return { ...prepared, summary: { ...prepared.summary, source: { kind: "receipt", receipt_id: receiptId } } };
  }
  const checkpoint = (await deps.memory.readJsonlContaining(MemoryPaths.checkpointReceipts, CheckpointReceiptRefSchema, receiptId)).find(
    (receipt) => receipt.receipt_id === receiptId,
  );
  const target =
    checkpoint?.dispatch_id !== undefined
      ? fromRun(context, checkpoint.dispatch_id)
      : checkpoint?.learn_session_id !== undefined
        ? fromSession(context, checkpoint.learn_session_id)
        : undefined;
  if (target === undefined) throw new AppError("RECEIPT_NOT_FOUND", `No receipt ${receiptId} names a run or session to learn from.`);
  const prepared = await target;
  return { ...prepared, summary: { ...prepared.summary, source: { kind: "receipt", receipt_id: receiptId } } };
}

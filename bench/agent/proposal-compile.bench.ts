import { createHash, randomUUID } from "node:crypto";
import type { ObservedActionEventWithDetail } from "../../shared/learning/observed-actions/observed-action";
import { canonicalJson, type PageSnapshot } from "../../shared/observation/page-snapshot";
import { lintCheckpoints } from "../../agent/learning/compiler/checkpoints/checkpoint-lint";
import { emitRecorderFlow } from "../../agent/learning/compiler/emit-recorder-flow";
import { emitCapabilityManifest, emitSkillMarkdown, emitTriggerTests } from "../../agent/learning/compiler/emit-skill";
import { interpretTrace } from "../../agent/learning/compiler/interpret";
import { normalizeTrace } from "../../agent/learning/compiler/normalize-trace";
import type { BenchResult } from "../bench-result";

/** A long synthetic demonstration: forms filled (with repeated keystroke edits), clicks, page changes. */
function syntheticSession(count: number): { events: ObservedActionEventWithDetail[]; snapshots: Map<string, PageSnapshot> } {
  const session = randomUUID();
  const snapshots = new Map<string, PageSnapshot>();
  const events: ObservedActionEventWithDetail[] = [];
  let time = Date.parse("2026-11-22T09:00:00Z");
  let page = 0;
  const snapshotRef = (index: number) => {
    const snapshot: PageSnapshot = {
      url: `http://127.0.0.1:8123/p${index}`,
      title: `Page ${index}`,
      headings: [{ level: 1, text: `Page ${index}` }],
      landmarks: [],
      dialogs: [],
      forms: [],
      buttons: ["Next"],
      links: [],
      status_messages: [`Saved ${index}`],
      schema_version: 1,
    };
    const sha = createHash("sha256").update(canonicalJson(snapshot)).digest("hex");
    snapshots.set(sha, snapshot);
    return `snapshot:${sha}`;
  };
  for (let i = 0; i < count; i += 1) {
    const field = i % 7;
    const isClick = i % 10 === 9;
    const common = {
      event_id: randomUUID(),
      learn_session_id: session,
      adapter_kind: "browser_dom" as const,
      app_family: "browser",
      caused_state_change: false,
      redaction_mode: "mask_text" as const,
      created_at: new Date((time += 50)).toISOString(),
      schema_version: 1 as const,
    };
    if (isClick) {
      const before = snapshotRef(page);
      page += 1;
      events.push({
        ...common,
        action_label: "Click 'Next'",
        before_state_ref: before,
        after_state_ref: snapshotRef(page),
        caused_state_change: true,
        browser_detail: {
          page_url: `http://127.0.0.1:8123/p${page - 1}`,
          page_title: `Page ${page - 1}`,
          target_role: "button",
          target_name: "Next",
          selectors: [['aria/Next[role="button"]'], ["#next"]],
          dom_event_kind: "click",
        },
      });
    } else {
      events.push({
        ...common,
        action_label: `Fill 'Field ${field}'`,
        browser_detail: {
          page_url: `http://127.0.0.1:8123/p${page}`,
          page_title: `Page ${page}`,
          target_role: "textbox",
          target_name: `Field ${field}`,
          target_tag: "input",
          input_type: "text",
          selectors: [[`aria/Field ${field}[role="textbox"]`], [`#f${field}`]],
          dom_event_kind: "change",
          masked_field: { masked: true, length_class: "short" },
        },
      });
    }
  }
  return { events, snapshots };
}

/** Issue #5: a 10,000-event session → proposal (normalize, interpret, emit, lint), time and peak memory. */
export async function benchProposalCompile(): Promise<BenchResult[]> {
  const { events, snapshots } = syntheticSession(10_000);
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let peak = heapBefore;
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 5);
  const start = performance.now();
  const trace = normalizeTrace({ events, boundaries: [] });
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  const interpretation = interpretTrace({ trace, snapshots, answers: { goal_summary: "Fill the long form" } });
  const markdown = emitSkillMarkdown(interpretation);
  emitRecorderFlow(interpretation, trace.steps);
  emitCapabilityManifest(interpretation, "bench.cap");
  emitTriggerTests(interpretation);
  lintCheckpoints(interpretation.checkpoints);
  const elapsed = performance.now() - start;
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  clearInterval(sample);
  if (markdown.length === 0) throw new Error("no SKILL.md produced");
  const peakMb = (peak - heapBefore) / (1024 * 1024);
  return [
    { name: "compiler: 10,000-event session → proposal", value: elapsed, unit: "ms", target: "< 1000 ms", pass: elapsed < 1000 },
    { name: "compiler: peak heap added while compiling 10,000 events", value: peakMb, unit: "MB", target: "< 200 MB", pass: peakMb < 200 },
  ];
}

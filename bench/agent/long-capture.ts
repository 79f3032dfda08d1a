import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { canonicalJson, type PageSnapshot } from "../../shared/observation/page-snapshot";
import { MemoryPaths } from "../../agent/memory/memory-paths";
import { startAgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import type { BenchResult } from "../bench-result";

const SITE = "http://127.0.0.1:8123";
const CAPTURE_MS = 2 * 60 * 60 * 1000;
const EVENT_EVERY_MS = 2_000;
const BATCH = 25;
const SUBJECTS = [
  "Printer on floor 3 does not print",
  "VPN drops every hour",
  "New laptop for the intern",
  "Password reset for the shared mailbox",
  "Projector in room B is flickering",
  "Cannot open the payroll spreadsheet",
  "Badge does not open the garage",
  "Monitor arm is loose",
];

/** The ticket list as a person triaging sees it: open tickets left, filters, paging. */
function listPage(remaining: number, first: number): PageSnapshot {
  const rows = Array.from({ length: Math.min(60, remaining) }, (_, offset) => `Ticket #${first + offset} — ${SUBJECTS[(first + offset) % SUBJECTS.length]}`);
  return {
    url: `${SITE}/tickets`,
    title: `Open tickets (${remaining}) · Helpdesk`,
    headings: [
      { level: 1, text: "Open tickets" },
      { level: 2, text: `${remaining} waiting` },
      { level: 2, text: "Filters" },
    ],
    landmarks: [
      { role: "banner" },
      { role: "navigation", name: "Main" },
      { role: "main" },
      { role: "complementary", name: "Filters" },
      { role: "contentinfo" },
    ],
    dialogs: [],
    forms: [
      {
        name: "Filters",
        fields: [
          { label: "Search", type: "search", required: false },
          { label: "Team", type: "select-one", required: false },
          { label: "Priority", type: "select-one", required: false },
          { label: "Only mine", type: "checkbox", required: false },
        ],
      },
    ],
    buttons: ["Apply filters", "Clear", "New ticket", "Previous page", "Next page", "Export CSV", "Account", "Notifications", "Help"],
    links: ["Dashboard", "Tickets", "Reports", "Knowledge base", "Settings", ...rows].slice(0, 80),
    status_messages: [`Showing ${Math.min(60, remaining)} of ${remaining}`],
    schema_version: 1,
  };
}

/** One ticket, before and after it is assigned, given a status and saved. */
function ticketPage(ticket: number, status: "New" | "In progress" | "Saved"): PageSnapshot {
  return {
    url: `${SITE}/tickets/*`,
    title: `Ticket #${ticket} · Helpdesk`,
    headings: [
      { level: 1, text: `Ticket #${ticket}: ${SUBJECTS[ticket % SUBJECTS.length]}` },
      { level: 2, text: "Conversation" },
      { level: 2, text: "Details" },
      { level: 2, text: "History" },
      { level: 3, text: "Attachments" },
    ],
    landmarks: [
      { role: "banner" },
      { role: "navigation", name: "Main" },
      { role: "main" },
      { role: "complementary", name: "Details" },
      { role: "contentinfo" },
    ],
    dialogs: [],
    forms: [
      {
        name: "Update ticket",
        fields: [
          { label: "Status", type: "select-one", required: true },
          { label: "Assignee", type: "select-one", required: false },
          { label: "Priority", type: "select-one", required: true },
          { label: "Team", type: "select-one", required: false },
          { label: "Due date", type: "date", required: false },
          { label: "Internal note", type: "textarea", required: false },
          { label: "Reply to requester", type: "textarea", required: false },
          { label: "Notify requester", type: "checkbox", required: false },
        ],
      },
    ],
    buttons: [
      "Assign to me",
      "Save",
      "Save and close",
      "Merge",
      "Escalate",
      "Attach file",
      "Back to list",
      "Previous ticket",
      "Next ticket",
      "Account",
      "Notifications",
      "Help",
    ],
    links: ["Dashboard", "Tickets", "Reports", "Knowledge base", "Settings", "Requester profile", "Related: printer guide", "Related: VPN setup", "Audit log"],
    status_messages: status === "Saved" ? [`Ticket #${ticket} saved`, "Status: In progress"] : [`Status: ${status}`],
    schema_version: 1,
  };
}

interface Step {
  label: string;
  kind: "click" | "change" | "select" | "navigation";
  role?: string;
  name?: string;
  after?: PageSnapshot;
  typed?: boolean;
}

/** One ticket triaged: 12 actions, a new snapshot whenever the page changed. */
function triage(ticket: number, remaining: number): Step[] {
  const list = listPage(remaining, ticket);
  const fresh = ticketPage(ticket, "New");
  const inProgress = ticketPage(ticket, "In progress");
  const saved = ticketPage(ticket, "Saved");
  return [
    { label: "Open 'Open tickets'", kind: "navigation", after: list },
    { label: "Click 'Search'", kind: "click", role: "searchbox", name: "Search" },
    { label: "Type in 'Search'", kind: "change", role: "searchbox", name: "Search", typed: true },
    { label: `Click 'Ticket #${ticket}'`, kind: "click", role: "link", name: `Ticket #${ticket}`, after: fresh },
    { label: `Open 'Ticket #${ticket}'`, kind: "navigation", after: fresh },
    { label: "Click 'Assign to me'", kind: "click", role: "button", name: "Assign to me" },
    { label: "Select 'Status'", kind: "select", role: "combobox", name: "Status", after: inProgress },
    { label: "Select 'Priority'", kind: "select", role: "combobox", name: "Priority" },
    { label: "Click 'Internal note'", kind: "click", role: "textbox", name: "Internal note" },
    { label: "Type in 'Internal note'", kind: "change", role: "textbox", name: "Internal note", typed: true },
    { label: "Click 'Save'", kind: "click", role: "button", name: "Save", after: saved },
    { label: "Click 'Back to list'", kind: "click", role: "link", name: "Back to list" },
  ];
}

async function folderBytes(folder: string): Promise<{ apparent: number; allocated: number; files: number }> {
  let apparent = 0;
  let allocated = 0;
  let files = 0;
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const child = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      const inner = await folderBytes(child);
      apparent += inner.apparent;
      allocated += inner.allocated;
      files += inner.files;
    } else {
      const info = await stat(child);
      apparent += info.size;
      allocated += info.blocks * 512;
      files += 1;
    }
  }
  return { apparent, allocated, files };
}

type AgentPost = (url: string, payload?: unknown) => Promise<Record<string, any>>;

/** POST to the agent process with its token; a refusal throws. */
function agentPost(agentUrl: string, token: string): AgentPost {
  return async (url, payload) => {
    const response = await fetch(`${agentUrl}${url}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { "content-type": "application/json" }) },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    const body = (await response.json()) as Record<string, any>;
    if (response.status >= 300) throw new Error(`${url} answered ${response.status}: ${JSON.stringify(body)}`);
    return body;
  };
}

/**
 * The 2 hours of triage replayed into the session in batches of BATCH, each event with the snapshot
 * refs of the page before and after it, each new snapshot sent once; how long the replay took.
 */
async function replayCapture(call: AgentPost, sessionId: string): Promise<{ total: number; snapshotsSent: number; replayMs: number }> {
  const total = CAPTURE_MS / EVENT_EVERY_MS;
  const steps: Step[] = [];
  for (let ticket = 1000; steps.length < total; ticket += 1) steps.push(...triage(ticket, 2000 - (ticket - 1000)));
  steps.length = total;
  const began = Date.now() - CAPTURE_MS;
  let before: string | undefined;
  let pageUrl = `${SITE}/tickets`;
  let snapshotsSent = 0;
  const replayStart = performance.now();
  for (let start = 0; start < total; start += BATCH) {
    const events: unknown[] = [];
    const snapshots = new Map<string, unknown>();
    for (const [offset, step] of steps.slice(start, start + BATCH).entries()) {
      let after = before;
      if (step.after !== undefined) {
        pageUrl = step.after.url;
        const sha = createHash("sha256").update(canonicalJson(step.after)).digest("hex");
        after = `snapshot:${sha}`;
        if (after !== before) snapshots.set(sha, { sha256: sha, learn_session_id: sessionId, snapshot: step.after });
      }
      events.push({
        event_id: randomUUID(),
        learn_session_id: sessionId,
        adapter_kind: "browser_dom",
        app_family: "browser",
        action_label: step.label,
        redaction_mode: "mask_text",
        ...(before === undefined ? {} : { before_state_ref: before }),
        ...(after === undefined ? {} : { after_state_ref: after }),
        created_at: new Date(began + (start + offset) * EVENT_EVERY_MS).toISOString(),
        schema_version: 1,
        browser_detail: {
          page_url: pageUrl,
          page_title: "Helpdesk",
          ...(step.role === undefined ? {} : { target_role: step.role, target_name: step.name, selectors: [[`aria/${step.name}[role="${step.role}"]`]] }),
          dom_event_kind: step.kind,
          ...(step.typed ? { masked_field: { masked: true, length_class: "medium" } } : {}),
        },
      });
      before = after;
    }
    snapshotsSent += snapshots.size;
    const ack = await call("/api/observations/events", { batch_id: randomUUID(), events, snapshots: [...snapshots.values()], schema_version: 1 });
    if (ack.accepted.length !== events.length || ack.snapshots_rejected.length > 0) {
      throw new Error(`the agent did not take the whole batch: ${JSON.stringify({ ...ack, accepted: ack.accepted.length })}`);
    }
  }
  return { total, snapshotsSent, replayMs: performance.now() - replayStart };
}

/**
 * A 2-hour demonstration at a person's pace — an action every 2 s (3,600), a new page snapshot
 * whenever the page changed (4 per ticket of 12 actions) — replayed into the real agent process
 * through `POST /api/observations/events` in batches of 25, with `created_at`s 2 s apart over the
 * 2 hours before the replay (the agent's clock is not moved). Then Stop and Generate.
 */
export async function benchLongCapture(nodeArgs?: readonly string[]): Promise<BenchResult[]> {
  const { root, cleanup } = await makeTempMemoryRoot("elnor-bench-capture-");
  // `nodeArgs`: how the agent is run (bench/agent/agent-scale.bench.ts passes npm start's compiled agent).
  const agent = await startAgentProcess(root, { OPENCLAW_WORKSPACE: path.join(root, "openclaw-workspace") }, nodeArgs);
  try {
    const token = (await readFile(path.join(root, MemoryPaths.agentToken), "utf8")).trim();
    const call = agentPost(agent.url, token);
    const sessionId = (await call("/api/learn/sessions", { entry_mode: "demonstrating_skill" })).session.learn_session_id as string;
    await call(`/api/learn/sessions/${sessionId}/start`);
    await call(`/api/learn/sessions/${sessionId}/mark-goal`, { goal_description: "Triage the open helpdesk tickets" });
    const { total, snapshotsSent, replayMs } = await replayCapture(call, sessionId);
    await call(`/api/learn/sessions/${sessionId}/stop`);
    const disk = await folderBytes(path.join(root, MemoryPaths.observationFolder(sessionId)));
    const generateStart = performance.now();
    const generated = await call(`/api/learn/sessions/${sessionId}/generate-proposal`);
    const generateMs = performance.now() - generateStart;
    if (typeof generated.proposal_id !== "string") throw new Error(`no proposal: ${JSON.stringify(generated).slice(0, 400)}`);
    const hours = CAPTURE_MS / 3_600_000;
    const what = `2-hour capture (${total.toLocaleString("en")} events, ${snapshotsSent.toLocaleString("en")} snapshots)`;
    return [
      {
        name: `${what}: disk used per hour under the session's observations folder (allocated blocks; ${disk.files.toLocaleString("en")} files)`,
        value: disk.allocated / hours / 1024 / 1024,
        unit: "MB/h",
        target: "reported (≤ 50 MB/h)",
        pass: disk.allocated / hours <= 50 * 1024 * 1024,
      },
      { name: `${what}: bytes written per hour (file sizes)`, value: disk.apparent / hours / 1024 / 1024, unit: "MB/h", target: "reported", pass: true },
      { name: `${what}: generate-proposal (through HTTP)`, value: generateMs, unit: "ms", target: "reported (≤ 5000 ms)", pass: generateMs <= 5000 },
      { name: `${what}: replay into the agent, batches of ${BATCH} (through HTTP)`, value: replayMs, unit: "ms", target: "reported", pass: true },
    ];
  } finally {
    await agent.stop();
    await cleanup();
  }
}

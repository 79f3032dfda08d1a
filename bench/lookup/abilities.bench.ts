import { randomUUID } from "node:crypto";
import type { AbilityAvailabilityEntry } from "../../shared/abilities/availability";
import { agentLoggerOptions, buildApp } from "../../agent/app/app";
import { openMemoryStore } from "../../agent/memory/memory-store";
import { MemoryPaths } from "../../agent/memory/memory-paths";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import type { BenchResult } from "../bench-result";
import { benchLookupQuality } from "./lookup-quality.bench";
import { benchLookupMeaning } from "./lookup-meaning.bench";
import { percentile } from "./lookup-sets";

const WORDS = [
  "invoice",
  "export",
  "report",
  "customer",
  "order",
  "refund",
  "shipping",
  "ticket",
  "calendar",
  "budget",
  "contract",
  "payroll",
  "travel",
  "expense",
  "survey",
  "vendor",
];

function entries(count: number): AbilityAvailabilityEntry[] {
  return Array.from({ length: count }, (_, index) => {
    const a = WORDS[index % WORDS.length] as string;
    const b = WORDS[(index * 7 + 3) % WORDS.length] as string;
    return {
      ability_id: `learned.skill-${index}`,
      title: `${a} ${b} task ${index}`,
      family: "browser",
      source: "learned" as const,
      install_lane: (["experimental_private", "approved_workspace", "shared_promoted"] as const)[index % 3]!,
      enabled: true,
      usable_now: index % 11 !== 0,
      trigger_phrases: [`${a} the ${b}`, `help me ${a} ${b} ${index}`],
      negative_triggers: [`delete the ${b}`],
      aliases: [],
      project_scopes: [],
      preferred_control_surfaces: [],
      support_pack_refs: [],
      schema_version: 1,
    };
  });
}

type AgentCall = (method: "GET" | "POST", url: string, payload?: unknown) => Promise<Record<string, any>>;
type Memory = Awaited<ReturnType<typeof openMemoryStore>>;
type App = Awaited<ReturnType<typeof buildApp>>;

/** Our API through `inject`, with the agent's token, answers as JSON. */
function agentCall(app: App, token: string): AgentCall {
  return async (method, url, payload) =>
    (
      await app.inject({
        method,
        url,
        headers: { host: "127.0.0.1:47998", authorization: `Bearer ${token}` },
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      })
    ).json() as Record<string, any>;
}

/** One demonstration compiled to a proposal and installed; the install's time (materialize, project, bridge, availability). */
async function timedInstall(call: AgentCall, index: number): Promise<number> {
  const sessionId = (await call("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill" })).session.learn_session_id as string;
  await call("POST", `/api/learn/sessions/${sessionId}/start`);
  await call("POST", `/api/learn/sessions/${sessionId}/mark-goal`, { goal_description: `Export report number ${index}` });
  const event = {
    event_id: randomUUID(),
    learn_session_id: sessionId,
    adapter_kind: "browser_dom",
    action_label: "Click 'Export'",
    redaction_mode: "mask_text",
    created_at: new Date().toISOString(),
    schema_version: 1,
    browser_detail: {
      page_url: "http://127.0.0.1:8123/reports",
      page_title: "Reports",
      target_name: "Export",
      target_role: "button",
      selectors: [["#export"], ["aria/Export"]],
      dom_event_kind: "click",
    },
  };
  await call("POST", "/api/observations/events", { batch_id: randomUUID(), events: [event], snapshots: [], schema_version: 1 });
  await call("POST", `/api/learn/sessions/${sessionId}/stop`);
  const proposalId = (await call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`)).proposal_id as string;
  const detail = await call("GET", `/api/learn/proposals/${proposalId}/detail`);
  const required = (detail.questions as Array<{ question_id: string; question_text: string }>).filter(
    (question) => !question.question_text.endsWith("(optional)"),
  );
  if (required.length > 0)
    await call("POST", `/api/learn/sessions/${sessionId}/answer-questions`, {
      answers: required.map((question) => ({ question_id: question.question_id, answer_text: "The report file is listed" })),
    });
  const start = performance.now();
  const installed = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
  const installMs = performance.now() - start;
  if (typeof installed.ability_id !== "string") throw new Error(`install failed: ${JSON.stringify(installed)}`);
  return installMs;
}

/** Availability refresh at 1,000 installed abilities: registry lines written directly (the refresh is timed after). */
async function writeRegistry(memory: Memory, count: number): Promise<void> {
  const now = new Date().toISOString();
  await memory.appendMany(
    MemoryPaths.abilityRegistry,
    entries(count).map((entry, index) => ({
      ability_id: entry.ability_id,
      skill_name: `skill-${index}`,
      capability_id: `learned.skill-${index}`,
      title: entry.title,
      family: "browser",
      install_lane: entry.install_lane === "quarantined" ? "experimental_private" : entry.install_lane,
      enabled: true,
      quarantined: false,
      trigger_phrases: entry.trigger_phrases,
      negative_triggers: entry.negative_triggers,
      project_scopes: [],
      preferred_control_surfaces: [],
      support_pack_refs: [],
      proposal_id: randomUUID(),
      installed_at: now,
      updated_at: now,
    })),
  );
}

/** One lookup through HTTP, its time. */
async function timedLookup(app: App, token: string): Promise<number> {
  const start = performance.now();
  const answer = await app.inject({
    method: "POST",
    url: "/api/abilities/lookup",
    headers: { host: "127.0.0.1:47998", authorization: `Bearer ${token}` },
    payload: { user_query: "export the invoice report", schema_version: 1 },
  });
  if (answer.statusCode !== 200) throw new Error(`lookup failed: ${answer.body}`);
  return performance.now() - start;
}

/**
 * The agent reopened on the memory: the availability refresh; what a user waits for, the first
 * lookup after the agent started (WordNet read, documents and index built for 1,020 abilities, the
 * sentence encoder loaded and every phrase read by it, as the first lookup ever does), then one
 * more; then the first lookup after a restart (the phrases' vectors read back from ELNOR_MEMORY).
 */
async function lookupTimes(memory: Memory) {
  const reopened = await buildApp({ memory, port: 47998, logger: agentLoggerOptions("silent") });
  await reopened.ready();
  const refreshStart = performance.now();
  await reopened.learning.abilities.refreshAvailability();
  const refreshMs = performance.now() - refreshStart;
  const reopenedToken = ((await memory.readText(MemoryPaths.agentToken)) ?? "").trim();
  const firstLookupMs = await timedLookup(reopened, reopenedToken);
  const nextLookupMs = await timedLookup(reopened, reopenedToken);
  await reopened.close();
  const restarted = await buildApp({ memory, port: 47998, logger: agentLoggerOptions("silent") });
  await restarted.ready();
  const restartedLookupMs = await timedLookup(restarted, reopenedToken);
  await restarted.close();
  return { refreshMs, firstLookupMs, nextLookupMs, restartedLookupMs };
}

/**
 * Issue #15 lookup quality and latency (wording matcher next to the §0C.11C baseline), issue #6
 * install saga time and availability refresh at 1,000, and the first lookup through the agent.
 */
export async function benchAbilities(): Promise<BenchResult[]> {
  const lookup = [...(await benchLookupQuality()), ...(await benchLookupMeaning())];

  const { root, cleanup } = await makeTempMemoryRoot("elnor-bench-abilities-");
  const memory = await openMemoryStore({ root });
  const app = await buildApp({ memory, port: 47998, logger: agentLoggerOptions("silent"), chromiumPath: "/nonexistent" });
  try {
    await app.ready();
    const call = agentCall(app, ((await memory.readText(MemoryPaths.agentToken)) ?? "").trim());
    const installTimes: number[] = [];
    for (let index = 0; index < 20; index += 1) installTimes.push(await timedInstall(call, index));
    installTimes.sort((a, b) => a - b);
    await writeRegistry(memory, 1_000);
    await app.close();
    const { refreshMs, firstLookupMs, nextLookupMs, restartedLookupMs } = await lookupTimes(memory);
    const reported = { unit: "ms", target: "reported", pass: true };
    return [
      ...lookup,
      { name: "install saga p50 (materialize, project, bridge, availability), 20 installs", value: percentile(installTimes, 50), ...reported },
      { name: "availability + catalog refresh at 1,020 installed abilities", value: refreshMs, ...reported },
      {
        name: "first lookup ever, 1,020 abilities (WordNet read, index built, every phrase read by the sentence encoder; through HTTP)",
        value: firstLookupMs,
        ...reported,
      },
      {
        name: "first lookup after a restart, 1,020 abilities (phrase vectors read back from ELNOR_MEMORY; through HTTP)",
        value: restartedLookupMs,
        ...reported,
      },
      { name: "next lookup, 1,020 abilities (through HTTP)", value: nextLookupMs, ...reported },
    ];
  } finally {
    await memory.close();
    await cleanup();
  }
}

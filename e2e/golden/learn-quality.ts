/**
 * `npm run learn-quality` (issue #14): the measure of whether a demonstration becomes a skill that
 * works later. For every fixture app (quality-sites/, quality-flows.ts): a real demonstration with
 * the built extension in Chromium and a real agent, the proposal the agent compiles (answering the
 * one question a user would, if asked), then the rehearsal of that proposal on the unchanged app
 * and on each cosmetic variant (quality-variants.ts). Prints one table.
 *
 *   npm run build && node --import tsx e2e/golden/learn-quality.ts [fixture …] [--only wiki,blog] [--out /tmp/dir]
 *
 * Issue #35's work apps (work-flows.ts: a wiki, a blog, an admin console behind a sign-in) go on:
 * validated through the agent with the values a person gives, installed, run later with new inputs
 * (managed browser) and checked in the app's own state (work-later.ts). `--out` keeps what each
 * fixture produced (the draft skill, rehearsals, validation runs, the run, the app's state).
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { TestPolicy } from "../../shared/learning/sessions/test-policy";
import { projectRoot, startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import type { RecorderFlow } from "../../shared/execution/recorder-flow";
import type { SkillParameter, CheckpointPlan } from "../../shared/execution/checkpoint-plan";
import { isRoleOnly } from "../../agent/learning/compiler/control-names";
import { parseSuccessCondition } from "../../shared/learning/checkpoints/success-conditions";
import { runRehearsal, type RehearsalResult } from "../../agent/learning/validation/rehearsal";
import type { WorkflowGraph } from "../../shared/learning/checkpoints/workflow-graph";
import { launchExtensionBrowser, type ExtensionBrowser } from "../test-support/extension-browser";
import { agentApi, demonstrate, pair, readRecording } from "./demonstration";
import { serveFixtureSite, type FixtureSite } from "./fixture-server";
import { QUALITY_FLOWS, QUALITY_SITES_DIR, WORK_FLOWS, qualityNeedles, type QualityFlow } from "./quality-flows";
import { laterUse, saverFor, storedAnywhere } from "./work-later";
import { valuesFor, workNeedles } from "./work-flows";
import { printFailures, printTable, qualityTargets, verdict, type Row } from "./quality-table";
import { VARIANTS } from "./quality-variants";

/** `--name value` or `--name=value`. */
function option(name: string): string | undefined {
  const at = process.argv.findIndex((argument) => argument === `--${name}` || argument.startsWith(`--${name}=`));
  if (at < 0) return undefined;
  const argument = process.argv[at] ?? "";
  return argument.includes("=") ? argument.slice(argument.indexOf("=") + 1) : process.argv[at + 1];
}
const OUT = option("out");

/** The time a person leaves between two actions (long enough for the capture's settled snapshot, 2.5 s). */
const PAUSE_MS = 2_800;

const GeneratedSchema = z.object({ proposal_id: z.string(), session: z.object({ state: z.string() }) });
const DetailSchema = z.object({
  proposal: z.object({ draft_skill_path: z.string(), proposal_state: z.string() }),
  questions: z.array(z.object({ question_id: z.string(), question_text: z.string(), required: z.boolean(), answered: z.boolean() })),
});

function testValue(parameter: SkillParameter, index: number): string {
  switch (parameter.type_hint) {
    case "email":
      return `rehearsal${index}@example.test`;
    case "number":
      return String(40 + index);
    case "secret":
      return `Rehearsal-Secret-${index}!`;
    case "phone":
      return `+1 555 010${index}`;
    case "date":
      return "2026-03-15";
    case "url":
      return "https://example.test/";
    default:
      return `Rehearsal ${parameter.label} ${index + 1}`;
  }
}

interface LearnContext {
  root: string;
  agent: AgentProcess;
  token: string;
  chromium: ExtensionBrowser;
  panel: Awaited<ReturnType<typeof pair>>;
}

async function learnOne(flow: QualityFlow, context: LearnContext): Promise<Row> {
  // One site on a free port for the whole fixture: the recorded flow holds its URLs, so every
  // rehearsal goes to the same origin, each with the variant's pages.
  const site = flow.work !== undefined ? await flow.work.start() : await serveFixtureSite({ ...flow.routes, sitesDir: QUALITY_SITES_DIR });
  try {
    return await learnOn(site, flow, context);
  } finally {
    await site.close();
  }
}

async function learnOn(site: FixtureSite & { state?: () => Promise<unknown> }, flow: QualityFlow, context: LearnContext): Promise<Row> {
  const { root, agent, token, chromium, panel } = context;
  const api = agentApi(agent, token);
  const sessionId = await demonstrate({ root, agent, token, chromium, panel, site, flow, pauseMs: PAUSE_MS });
  const phase = (what: string) => console.error(`  ${flow.name}: ${what} at ${new Date().toISOString().slice(11, 19)}`);
  phase("demonstrated");
  const recording = await readRecording(root, sessionId);
  if (process.argv.includes("--keep")) await keepRecording(flow.name, recording);
  const save = saverFor(OUT, flow.name);
  await save("recording/events.jsonl", `${recording.events.join("\n")}\n`);
  await save("recording/boundaries.json", recording.boundaries);
  for (const [sha, text] of recording.snapshots) await save(`recording/snapshots/${sha}.json`, text);
  const stored = [...recording.events, ...recording.snapshots.values()].join("\n").toLowerCase();
  const leaked = [...qualityNeedles(), ...workNeedles()]
    .filter((needle) => stored.includes(needle.toLowerCase()))
    .map((needle) => {
      const at = stored.indexOf(needle.toLowerCase());
      return `${needle} (in …${stored.slice(Math.max(0, at - 160), at).replace(/\s+/g, " ")}…)`;
    });

  // A work app's test policy, as a person sets it: live reads, safe writes, only the app's own host.
  const appHost = new URL(site.origin).host;
  if (flow.work !== undefined) {
    await api("POST", `/api/learn/sessions/${sessionId}/set-test-policy`, {
      test_policy: { policy_id: randomUUID(), mode: "live_read_safe_write", allowed_domains: [appHost], forbid_external_send: true, schema_version: 1 },
    });
  }
  const { proposal_id: proposalId } = GeneratedSchema.parse(await api("POST", `/api/learn/sessions/${sessionId}/generate-proposal`));
  let detail = DetailSchema.parse(await api("GET", `/api/learn/proposals/${proposalId}/detail`));
  const open = detail.questions.filter((question) => question.required && !question.answered);
  const asked = open.length > 0;
  if (asked) {
    const answers = open.map((question) => ({ question_id: question.question_id, answer_text: flow.answer ?? "It looks done." }));
    await api("POST", `/api/learn/sessions/${sessionId}/answer-questions`, { answers });
    detail = DetailSchema.parse(await api("GET", `/api/learn/proposals/${proposalId}/detail`));
  }
  // The next demonstration needs no open session: this one is done with once its files are read.
  const folder = path.join(root, path.dirname(detail.proposal.draft_skill_path));
  const read = async <T>(name: string) => JSON.parse(await readFile(path.join(folder, name), "utf8")) as T;
  const recorder = await read<RecorderFlow>("flow.recorder.json");
  const checkpoints = await read<CheckpointPlan[]>("checkpoints.json");
  const parameters = await read<SkillParameter[]>("parameters.json");
  const graph = await read<WorkflowGraph>("workflow-graph.json");
  for (const name of ["flow.recorder.json", "checkpoints.json", "parameters.json", "workflow-graph.json", "SKILL.md"]) {
    const text = await readFile(path.join(folder, name), "utf8").catch(() => undefined);
    if (text !== undefined) await save(`draft/${name}`, text);
  }
  await save("proposal-detail.json", detail);
  // A proposal in review is rejected; one still drafting (a failed lint) is cancelled. A work
  // app's proposal goes on to validation, install and a later run first (below).
  const closeProposal = () =>
    api("POST", `/api/learn/proposals/${proposalId}/reject`, { reason: "learn-quality run", schema_version: 1 }).catch(() =>
      api("POST", `/api/learn/sessions/${sessionId}/cancel`, {}),
    );
  if (flow.work === undefined) await closeProposal();
  const actions = graph.steps.filter((step) => step.step_type === "action");
  const nameOf = (label: string) => label.replace(/^(Click|Check|Uncheck|Fill|Select|Press \w+ in|Open|Toggle)\s+/i, "").replace(/^'(.*)'$/, "$1");
  // "Fill the text field" names a kind of control, not one a person would recognise (issue #35).
  const byRole = (step: (typeof actions)[number]) =>
    isRoleOnly(nameOf(step.label)) || /^the (text |search |input )?(field|box|input|control)$/i.test(nameOf(step.label));
  const roleOnly = actions.filter(byRole).length;
  // Issue #35's names: an access-key hint ("Search [F]") or a doubled word ("Insert Insert") is not a human label either.
  const unclean = actions.filter((step) => !byRole(step) && /\[[A-Za-z0-9]\]|\b(\w+) \1\b/i.test(nameOf(step.label))).length;
  const testValuesFor = (variant: string) =>
    flow.work !== undefined
      ? valuesFor(flow.work, parameters, `rehearsal ${variant}`)
      : Object.fromEntries(parameters.map((parameter, index) => [parameter.name, testValue(parameter, index)]));
  const policy: TestPolicy = {
    policy_id: randomUUID(),
    mode: "live_read_safe_write",
    safe_targets: [],
    forbid_destructive_writes: false,
    forbid_external_send: true,
    allowed_domains: [appHost],
    max_actions: 60,
    cleanup_required: false,
    schema_version: 1,
  };

  phase("compiled");
  const rehearse = async (variant: (typeof VARIANTS)[number]) => {
    site.setTransform(variant.transform);
    return runRehearsal({ flow: recorder, checkpoints, parameters, testValues: testValuesFor(variant.name), policy, stepTimeoutMs: 6_000, timeoutMs: 120_000 });
  };
  const variants: Row["variants"] = [];
  let unchanged: RehearsalResult | undefined;
  for (const variant of VARIANTS) {
    const result = await rehearse(variant);
    phase(`rehearsed ${variant.name}: ${result.overall}`);
    await save(`rehearsal-${variant.name.replace(/[^a-z0-9]+/gi, "-")}.json`, result);
    if (variant.transform === undefined) unchanged = result;
    const actionResults = result.steps.filter((step) => /^rehearsal:s\d+$/.test(step.test_case_id));
    const checkpointResults = result.steps.filter((step) => step.test_case_id.startsWith("checkpoint:"));
    variants.push({
      name: variant.name,
      result,
      actions: actionResults.length,
      actionsPassed: actionResults.filter((step) => step.result === "passed").length,
      checkpointsTotal: checkpointResults.length,
      checkpointsPassed: checkpointResults.filter((step) => step.result === "passed").length,
      relocated: actionResults.filter((step) => step.details.includes("relocated by similarity")).length,
    });
  }
  const base = unchanged as RehearsalResult;
  site.setTransform(undefined);
  let later: Row["later"];
  if (flow.work !== undefined) {
    const used = await laterUse({
      api,
      proposalId,
      setup: flow.work,
      app: site as Parameters<typeof laterUse>[0]["app"],
      parameters,
      checkpoints,
      save,
      phase,
    });
    const { typedValues, ...rest } = used;
    later = rest;
    // An installed proposal is done with; one that was not is rejected as the others are.
    if (later.installed !== "yes") await closeProposal();
    // Nothing typed (the demonstration's values, the password, the validation's and the run's
    // values) may be anywhere in what the agent keeps.
    leaked.push(...(await storedAnywhere(root, [...workNeedles(), ...typedValues])));
    const log = agent.output().toLowerCase();
    leaked.push(...[...workNeedles(), ...typedValues].filter((needle) => log.includes(needle.toLowerCase())).map((needle) => `${needle} (in the agent's log)`));
    await save("later-use.json", later);
  }
  return {
    fixture: flow.name,
    pattern: flow.pattern,
    steps: actions.length,
    humanLabels: actions.length - roleOnly - unclean,
    roleOnly,
    checkpoints: checkpoints.length,
    checkable: checkpoints.filter((checkpoint) => parseSuccessCondition(checkpoint.success_condition).kind !== "by_hand").length,
    asked,
    unchanged: base,
    unchangedEvidenceFails: base.steps.filter((step) => step.test_case_id.startsWith("checkpoint:") && step.result === "failed").length,
    variants: variants.filter((variant) => variant.name !== "unchanged"),
    leaked: [...new Set(leaked)],
    ...(later === undefined ? {} : { later }),
  };
}

/**
 * `--keep`: the demonstration as the agent stored it becomes a golden fixture under
 * agent/learning/compiler/golden/quality-<fixture>/ (compiled by quality-golden.test.ts), unless a
 * typed value is in it.
 */
async function keepRecording(name: string, recording: Awaited<ReturnType<typeof readRecording>>): Promise<void> {
  const files = new Map<string, string>([
    ["events.jsonl", `${recording.events.join("\n")}\n`],
    ["boundaries.json", `${JSON.stringify(recording.boundaries, null, 2)}\n`],
    ...[...recording.snapshots].map(([sha, text]): [string, string] => [`snapshots/${sha}.json`, text]),
  ]);
  for (const [file, text] of files) {
    const leaked = qualityNeedles().find((needle) => text.toLowerCase().includes(needle.toLowerCase()));
    if (leaked !== undefined) throw new Error(`quality-${name}/${file} contains the typed value "${leaked}": not kept`);
  }
  const folder = path.join(projectRoot, "agent", "learning", "compiler", "golden", `quality-${name}`);
  await rm(folder, { recursive: true, force: true });
  await mkdir(path.join(folder, "snapshots"), { recursive: true });
  for (const [file, text] of files) await writeFile(path.join(folder, file), text);
}

const ALL_FLOWS = [...QUALITY_FLOWS, ...WORK_FLOWS];
const valued = new Set(
  ["--only", "--out"].flatMap((name) => {
    const at = process.argv.indexOf(name);
    return at < 0 ? [] : [at + 1];
  }),
);
const wanted = [
  ...process.argv.slice(2).filter((argument, index) => !argument.startsWith("--") && !valued.has(index + 2)),
  ...(option("only")
    ?.split(",")
    .filter((name) => name !== "") ?? []),
];
const flows = ALL_FLOWS.filter((flow) => wanted.length === 0 || wanted.includes(flow.name));
if (flows.length === 0) throw new Error(`Unknown fixture(s): ${wanted.join(", ")}; known: ${ALL_FLOWS.map((flow) => flow.name).join(", ")}`);

/** One fixture at most this long (a hung browser must not stop the run); a work app also validates, installs and runs. */
const timeoutFor = (flow: QualityFlow) => (flow.work === undefined ? 300_000 : 720_000);

const rows: Row[] = [];
const notLearned: string[] = [];
for (const flow of flows) {
  // Each fixture on its own agent, memory and browser profile, as a new user would start.
  const { root, cleanup } = await makeTempMemoryRoot("elnor-quality-");
  let agent: AgentProcess | undefined;
  let chromium: ExtensionBrowser | undefined;
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const run = (async () => {
      agent = await startAgentProcess(root);
      const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
      chromium = await launchExtensionBrowser();
      const panel = await pair(chromium, agent, token);
      return learnOne(flow, { root, agent, token, chromium, panel });
    })();
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no result within ${timeoutFor(flow) / 1000} s`)), timeoutFor(flow));
    });
    rows.push(await Promise.race([run, timeout]));
    console.error(`${flow.name}: done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } catch (error) {
    // One fixture that cannot be learned is reported; the others still run.
    console.error(`${flow.name}: could not be learned: ${error instanceof Error ? error.message : String(error)}`);
    notLearned.push(flow.name);
  } finally {
    clearTimeout(timer);
    await chromium?.close().catch(() => undefined);
    await agent?.stop().catch(() => undefined);
    await cleanup();
  }
}
const targets = qualityTargets(rows, notLearned);
printTable(rows, targets);
if (process.argv.includes("--details")) printFailures(rows);
// A missed target or a fixture not learned fails the run, after the whole table is printed.
const { line, exitCode } = verdict(targets);
console.log(line);
process.exitCode = exitCode;

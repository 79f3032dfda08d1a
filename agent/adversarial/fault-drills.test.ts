import { toAgentSkillsMarkdown } from "../../shared/skills/agent-skills-format";
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiErrorResponseSchema } from "../../shared/common/error-envelope";
import { runAgentExpectingFailure, startAgentProcess, type AgentProcess } from "../test-support/agent-process";
import {
  apiClient,
  clickEvent,
  prepareInstalledAbility,
  prepareReadyProposal,
  startCapturingSession,
  type ApiClient,
} from "../test-support/adversarial/api-fixture";
import { checkMemoryIntegrity, filesUnder, killHard, readLog } from "../test-support/adversarial/drill-checks";
import { streamOverHttp, streamOverSocket } from "../test-support/adversarial/event-streams";
import { startListeningAgent } from "../test-support/adversarial/listening-agent";
import { watchTree } from "../test-support/adversarial/watch-tree";
import { diffMemoryTrees, readMemoryTree } from "../test-support/adversarial/memory-tree";

/**
 * Issue #8 fault drills: the real agent (`agent/server.ts` as a child process) killed with SIGKILL
 * at seeded random points while it ingests and while it installs, and ELNOR_MEMORY on a disk that
 * fills up. What is promised (DESIGN §5): nothing acknowledged is lost or doubled, no file is left
 * corrupt, nothing half-installed is usable, and the agent starts again.
 *
 * Kill points come from fast-check with DRILL_SEED (default below, printed with each round's
 * failure); DRILL_ROUNDS changes the number of rounds (default 20). Two agents on one
 * ELNOR_MEMORY are covered by agent/server.test.ts, a SIGKILL mid-append of the bare store by
 * agent/memory/memory-store.test.ts; these drills kill the whole agent.
 */
const DRILL_SEED = Number(process.env.DRILL_SEED ?? 20_260_108);
const ROUNDS = Number(process.env.DRILL_ROUNDS ?? 20);

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "elnor-fault-drills-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** An ELNOR_MEMORY prepared through the HTTP API of an in-process agent, then closed. */
async function prepareMemory<T>(name: string, build: (api: ApiClient) => Promise<T>): Promise<{ root: string; value: T }> {
  const root = path.join(scratch, name);
  await rm(root, { recursive: true, force: true });
  const agent = await startListeningAgent(root);
  try {
    return { root, value: await build(apiClient(agent.url, agent.token)) };
  } finally {
    await agent.close();
  }
}

async function tokenOf(root: string): Promise<string> {
  return (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
}

/** Every event id the agent serves for a session, page after page (what a user of the API sees). */
async function servedEventIds(api: ApiClient, sessionId: string): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const after = ids.at(-1);
    const page = await api.ok("GET", `/api/learn/sessions/${sessionId}/observations?limit=500${after === undefined ? "" : `&after=${after}`}`);
    const events = page.events as Array<{ event_id: string }>;
    ids.push(...events.map((event) => event.event_id));
    if (events.length < 500) return ids;
  }
}

const duplicatesIn = (ids: readonly string[]) => ids.filter((id, index) => ids.indexOf(id) !== index);

describe("fault drill: SIGKILL while ingesting", () => {
  it(`keeps every acknowledged event exactly once and every log readable across ${ROUNDS} kills`, async () => {
    const { root, value: sessionId } = await prepareMemory("ingest", (api) => startCapturingSession(api, "Export the monthly invoices"));
    const workspace = path.join(scratch, "ingest-workspace");
    const eventsFile = path.join(root, "system/learning/observations", sessionId, "events.jsonl");
    const token = await tokenOf(root);
    const delays = fc.sample(fc.integer({ min: 20, max: 400 }), { seed: DRILL_SEED, numRuns: ROUNDS });
    const acknowledged = new Set<string>();
    const sent = new Set<string>();
    let tornTails = 0;
    let agent: AgentProcess | undefined;
    try {
      for (const [round, delay] of delays.entries()) {
        const context = `round ${round} (DRILL_SEED=${DRILL_SEED}, kill after ${delay} ms)`;
        // The restart: a fresh process takes over the dead one's lock and reads everything back.
        agent = await startAgentProcess(root, { OPENCLAW_WORKSPACE: workspace });
        const api = apiClient(agent.url, token);
        expect((await api.ok("GET", `/api/learn/sessions/${sessionId}/detail`)).state, context).toBe("capturing");
        const served = await servedEventIds(api, sessionId);
        expect(duplicatesIn(served), `served twice, ${context}`).toEqual([]);
        expect(
          [...acknowledged].filter((id) => !served.includes(id)),
          `acknowledged but lost, ${context}`,
        ).toEqual([]);
        const stored = readLog<{ event_id: string }>(eventsFile).map((event) => event.event_id);
        expect(duplicatesIn(stored), `stored twice, ${context}`).toEqual([]);
        expect(
          stored.filter((id) => !sent.has(id)),
          `stored but never sent, ${context}`,
        ).toEqual([]);
        const integrity = checkMemoryIntegrity(root);
        expect(integrity.corrupt, context).toEqual([]);
        tornTails += integrity.tornTails.length;

        const streams = Promise.all([streamOverSocket(agent.url, token, sessionId), streamOverHttp(agent.url, token, sessionId)]);
        await new Promise((resolve) => setTimeout(resolve, delay));
        await killHard(agent.proc);
        for (const result of await streams) {
          expect(result.errors, context).toEqual([]);
          for (const id of result.sent) sent.add(id);
          for (const id of result.acknowledged) acknowledged.add(id);
        }
        // SIGKILL never tears a line (each flush is one write of whole lines, and the kernel finishes
        // it); a power cut can. Every fourth round leaves what one would, for the restart to repair.
        if (round % 4 === 3) appendFileSync(eventsFile, '{"event_id":"torn-by-a-power-cut","learn_sess');
      }
      expect(acknowledged.size, "the drill acknowledged too little to mean anything").toBeGreaterThan(ROUNDS * 20);
      if (process.env.DRILL_STATS !== undefined)
        console.log(`ingest drill: ${sent.size} events sent, ${acknowledged.size} acknowledged, ${tornTails} torn log tails found at restarts`);

      // Last restart, in process: the next append cuts any torn tail, after which every line is whole.
      const final = await startListeningAgent(root);
      try {
        const api = apiClient(final.url, final.token);
        const extra = clickEvent(sessionId, "After the last crash");
        expect(
          (await api.ok("POST", "/api/observations/events", { batch_id: crypto.randomUUID(), events: [extra], snapshots: [], schema_version: 1 })).accepted,
        ).toEqual([extra.event_id]);
        const served = await servedEventIds(api, sessionId);
        expect(duplicatesIn(served)).toEqual([]);
        expect([...acknowledged].filter((id) => !served.includes(id))).toEqual([]);
      } finally {
        await final.close();
      }
      const integrity = checkMemoryIntegrity(root);
      expect(integrity.corrupt).toEqual([]);
      expect(integrity.tornTails).not.toContain(path.relative(root, eventsFile));
      const text = await readFile(eventsFile, "utf8");
      expect(text.endsWith("\n")).toBe(true);
    } finally {
      if (agent !== undefined) await killHard(agent.proc);
    }
  }, 240_000);
});

/**
 * Where an install is killed: after a time, or as soon as the saga touches a file (§0C.13 steps:
 * materialize, project, bridge, availability, registry, proposal and session records).
 */
const KILL_POINTS = [
  { name: "time", pattern: undefined },
  { name: "materialize", pattern: /system\/learning\/installed\// },
  { name: "manifest", pattern: /system\/capabilities\/(manifests|metadata)\// },
  { name: "project", pattern: /openclaw-workspace\/skills\/\./ },
  { name: "bridge", pattern: /bridge_entries_current\.json/ },
  { name: "availability", pattern: /availability_current\.json/ },
  { name: "catalog", pattern: /catalog_current\.json/ },
  { name: "registry", pattern: /abilities\/registry\.jsonl/ },
  { name: "receipts", pattern: /learning\/receipts\.jsonl/ },
  { name: "proposal record", pattern: /learning\/proposals\.jsonl/ },
] as const;

/** What one install round left behind, as a user (through the API) and as the files show it. */
interface InstallAftermath {
  context: string;
  answer: string;
  /** The session's state on disk when the agent died (before any restart could recover it). */
  sessionAtCrash: string;
  session: string;
  corrupt: string[];
  projectionLeftovers: string[];
  installedFiles: string[];
  fullyInstalled: boolean;
  projectionWhole: boolean;
  projected: boolean;
  registered: boolean;
  usable: boolean;
  found: boolean;
  keptUsable: boolean;
  newSessionStatus: number;
}

const SKILL = "export-the-monthly-invoices";
const ABILITY_ID = `learned.${SKILL}`;
const COMPLETE_INSTALL = ["SKILL.md", "support-packs.json", "tests/flow.recorder.json", "tests/trigger-tests.json"];

/**
 * The install drill: a prepared ELNOR_MEMORY (one ability installed, a proposal ready for review)
 * copied afresh each round, the real agent asked to install, and killed at a seeded point of the
 * saga; then restarted (in process) on what the crash left.
 */
async function runInstallDrill(): Promise<InstallAftermath[]> {
  const { root: template, value } = await prepareMemory("install-template", async (api) => {
    const kept = await prepareInstalledAbility(api);
    const ready = await prepareReadyProposal(api, "Export the monthly invoices");
    const markdown = (await api.ok("GET", `/api/learn/proposals/${ready.proposalId}/skill-md`)).markdown as string;
    return { kept, ready, markdown };
  });
  const { kept, ready, markdown } = value;
  const plan = fc.sample(fc.record({ point: fc.constantFrom(...KILL_POINTS), nth: fc.integer({ min: 1, max: 2 }), delay: fc.integer({ min: 0, max: 70 }) }), {
    seed: DRILL_SEED,
    numRuns: ROUNDS,
  });
  const results: InstallAftermath[] = [];
  for (const [round, { point, nth, delay }] of plan.entries()) {
    const context = `round ${round} (DRILL_SEED=${DRILL_SEED}, kill at ${point.name}${point.pattern === undefined ? ` after ${delay} ms` : ` #${nth}`})`;
    const root = path.join(scratch, "install-round");
    await rm(root, { recursive: true, force: true });
    await cp(template, root, { recursive: true });
    const workspace = path.join(root, "openclaw-workspace");
    const agent = await startAgentProcess(root, { OPENCLAW_WORKSPACE: workspace });
    let seen = 0;
    const watcher = watchTree(root, (file) => {
      if (point.pattern !== undefined && point.pattern.test(file) && (seen += 1) >= nth) agent.proc.kill("SIGKILL");
    });
    let answer = "killed before answering";
    try {
      const install = fetch(`${agent.url}/api/learn/proposals/${ready.proposalId}/install`, {
        method: "POST",
        headers: { authorization: `Bearer ${await tokenOf(root)}`, "content-type": "application/json" },
        body: JSON.stringify({ install_lane: "experimental_private" }),
      }).then(
        (response) => (answer = `${response.status}`),
        () => undefined,
      );
      if (point.pattern === undefined) setTimeout(() => agent.proc.kill("SIGKILL"), delay);
      await Promise.race([install, new Promise((resolve) => agent.proc.once("exit", resolve))]);
    } finally {
      // Whatever happened first, the agent dies now (a trigger that never fired: killed after the saga).
      watcher.close();
      await killHard(agent.proc);
    }

    const corrupt = checkMemoryIntegrity(root).corrupt;
    const sessionRecords = readLog<{ op: string; session?: { learn_session_id: string; state: string } }>(path.join(root, "system/learning/sessions.jsonl"));
    const sessionAtCrash = sessionRecords.filter((record) => record.session?.learn_session_id === ready.sessionId).at(-1)?.session?.state ?? "missing";
    const restarted = await startListeningAgent(root);
    try {
      const api = apiClient(restarted.url, restarted.token);
      const availability = (await api.ok("GET", "/api/abilities/availability")).abilities as Array<{ ability_id: string; usable_now: boolean }>;
      const lookup = await api.ok("POST", "/api/abilities/lookup", {
        user_query: "export the monthly invoices",
        install_lanes_allowed: ["experimental_private", "approved_workspace", "shared_promoted"],
        schema_version: 1,
      });
      const installedDir = path.join(root, "system/learning/installed", SKILL);
      const installedFiles = existsSync(installedDir) ? filesUnder(installedDir) : [];
      const projected = path.join(workspace, "skills", SKILL, "SKILL.md");
      results.push({
        context,
        answer,
        sessionAtCrash,
        session: (await api.ok("GET", `/api/learn/sessions/${ready.sessionId}/detail`)).state as string,
        corrupt,
        installedFiles,
        fullyInstalled:
          COMPLETE_INSTALL.every((file) => installedFiles.includes(file)) && readFileSync(path.join(installedDir, "SKILL.md"), "utf8") === markdown,
        projectionWhole: !existsSync(projected) || readFileSync(projected, "utf8") === toAgentSkillsMarkdown(markdown),
        projected: existsSync(projected),
        // What a crash left beside the skills in the workspace, after the restart swept it.
        projectionLeftovers: (existsSync(path.join(workspace, "skills")) ? readdirSync(path.join(workspace, "skills")) : []).filter((name) =>
          /\.(staging|previous)-/.test(name),
        ),
        registered: readLog<{ ability_id: string }>(path.join(root, "system/abilities/registry.jsonl")).some((entry) => entry.ability_id === ABILITY_ID),
        usable: availability.some((entry) => entry.ability_id === ABILITY_ID && entry.usable_now),
        found: (lookup.matches as Array<{ ability_id: string; usable_now: boolean }>).some((match) => match.ability_id === ABILITY_ID && match.usable_now),
        keptUsable: availability.some((entry) => entry.ability_id === kept.abilityId && entry.usable_now),
        // Read-only probe: a new session is refused while another is in progress, and creates one otherwise (last step).
        newSessionStatus: (await api.call("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill" })).status,
      });
    } finally {
      await restarted.close();
    }
  }
  if (process.env.DRILL_STATS !== undefined) {
    console.log(
      results
        .map(
          (r) =>
            `${r.context}: answer ${r.answer}, session ${r.sessionAtCrash} at the crash, ${r.session} after restart, files ${r.installedFiles.length}/${COMPLETE_INSTALL.length}, registered ${r.registered}, usable ${r.usable}, new session ${r.newSessionStatus}`,
        )
        .join("\n"),
    );
  }
  return results;
}

describe("fault drill: SIGKILL during the install saga", () => {
  it(`leaves no corrupt file, never projects half a skill, keeps the other abilities, and the agent starts, across ${ROUNDS} kills`, async () => {
    const results = await runInstallDrill();
    for (const result of results) {
      expect.soft(result.corrupt, result.context).toEqual([]);
      // The copy the assistant reads is never half a skill (staging folder, then one rename).
      expect.soft(result.projectionWhole, result.context).toBe(true);
      // Every file of a finished install is the reviewed draft, byte for byte.
      if (result.installedFiles.length === COMPLETE_INSTALL.length) expect.soft(result.fullyInstalled, result.context).toBe(true);
      // The ability installed before is untouched by a crash in another one's saga.
      expect.soft(result.keptUsable, result.context).toBe(true);
    }
    // The drill reached into the saga, not only before or after it.
    expect(results.filter((result) => result.sessionAtCrash === "installing_private").length).toBeGreaterThan(0);
  }, 240_000);

  // Found by this drill and fixed with the install saga's journal (agent/abilities/ability-service.ts
  // `recover`): before it, a crash left the ability usable but unregistered, half-materialized
  // files, or the session stuck in installing_private for ever.
  it(`a restart recovers an interrupted install saga — nothing usable unless installed, no half files, no stuck session (${ROUNDS} kills)`, async () => {
    const results = await runInstallDrill();
    for (const result of results) {
      if (result.usable || result.found) {
        expect
          .soft(
            { registered: result.registered, fullyInstalled: result.fullyInstalled, projected: result.projected, session: result.session },
            `usable but not installed: ${result.context}`,
          )
          .toEqual({
            registered: true,
            fullyInstalled: true,
            projected: true,
            session: "installed_private",
          });
      }
      if (result.installedFiles.length > 0 && !result.fullyInstalled)
        expect.soft(result.session, `half-installed files left: ${result.context}`).toBe("quarantined");
      expect.soft(["ready_for_review", "installed_private", "quarantined"], `stuck mid-saga after restart: ${result.context}`).toContain(result.session);
      expect.soft(result.projectionLeftovers, `projection folders left after restart: ${result.context}`).toEqual([]);
      // A proposal still waiting for review blocks a new session by design (§0C.1B); nothing else may.
      if (result.session !== "ready_for_review") expect.soft(result.newSessionStatus, `learning blocked after restart: ${result.context}`).not.toBe(409);
    }
  }, 240_000);
});

/** Whether this machine lets the drill mount a tmpfs (root in a container usually can). */
function canMountTmpfs(): boolean {
  const probe = mkdtempSync(path.join(tmpdir(), "elnor-mount-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe], { stdio: "ignore" });
    execFileSync("umount", [probe], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

/** Writes zeros into `file` until the file system says ENOSPC: the disk is then full to the byte. */
function fillUp(file: string): number {
  const fd = openSync(file, "a");
  let written = 0;
  try {
    for (const size of [256 * 1024, 4096, 1]) {
      const chunk = Buffer.alloc(size);
      for (;;) {
        try {
          written += writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "ENOSPC") break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

const MOUNTABLE = canMountTmpfs();

/** One write request sent while the disk is full, and what it changed. */
interface FullDiskWrite {
  name: string;
  status: number;
  body: any;
  changed: string[];
}

interface SmallDisk {
  root: string;
  env: Record<string, string>;
  sessionId: string;
  ballast: string;
  token: string;
  agent: AgentProcess | undefined;
}

/**
 * A real full file system, never a mocked ENOSPC: a 4 MB tmpfs holding ELNOR_MEMORY (a session
 * capturing) and the workspace, the agent running on it as a child process, and a ballast file
 * that can fill it to the byte. Unmounted afterwards whatever happens.
 */
async function withSmallDisk(run: (disk: SmallDisk) => Promise<void>): Promise<void> {
  const { root: template, value: sessionId } = await prepareMemory(`disk-template-${crypto.randomUUID()}`, (api) =>
    startCapturingSession(api, "Export the monthly invoices"),
  );
  const mount = path.join(scratch, `small-disk-${crypto.randomUUID()}`);
  mkdirSync(mount);
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mount]);
  const root = path.join(mount, "memory");
  const disk: SmallDisk = {
    root,
    env: { OPENCLAW_WORKSPACE: path.join(mount, "workspace") },
    sessionId,
    ballast: path.join(mount, "ballast"),
    token: "",
    agent: undefined,
  };
  try {
    await cp(template, root, { recursive: true });
    disk.agent = await startAgentProcess(root, disk.env);
    disk.token = await tokenOf(root);
    await run(disk);
  } finally {
    if (disk.agent !== undefined) await killHard(disk.agent.proc);
    execFileSync("umount", [mount]);
  }
}

/** Fills the disk, then asks for the writes a capturing session makes; the disk stays full. */
async function writeOnFullDisk(disk: SmallDisk, batch: Record<string, unknown>): Promise<FullDiskWrite[]> {
  const api = apiClient(disk.agent?.url ?? "", disk.token);
  fillUp(disk.ballast);
  const writes: Array<[string, "POST" | "PUT", string, unknown?]> = [
    ["ingest a batch", "POST", "/api/observations/events", batch],
    ["mark a step", "POST", `/api/learn/sessions/${disk.sessionId}/mark-step`, { step_label: "Open the invoices" }],
    ["pause", "POST", `/api/learn/sessions/${disk.sessionId}/pause`],
    ["mark the goal", "POST", `/api/learn/sessions/${disk.sessionId}/mark-goal`, { goal_description: "Export them all" }],
    ["set the redaction", "PUT", `/api/learn/sessions/${disk.sessionId}/redaction`, { text_entry: "hash_only" }],
  ];
  const results: FullDiskWrite[] = [];
  for (const [name, method, url, body] of writes) {
    const before = readMemoryTree(disk.root);
    const answer = await api.call(method, url, body);
    results.push({ name, status: answer.status, body: answer.body, changed: diffMemoryTrees(before, readMemoryTree(disk.root)) });
  }
  if (process.env.DRILL_STATS !== undefined)
    console.log(`disk full:\n${results.map((r) => `${r.name}: ${r.status} ${r.body?.error?.code ?? ""} ${r.changed.join(", ")}`).join("\n")}`);
  return results;
}

const clickBatch = (sessionId: string) => ({
  batch_id: crypto.randomUUID(),
  events: Array.from({ length: 40 }, (_, index) => clickEvent(sessionId, `Row ${index}`)),
  snapshots: [],
  schema_version: 1,
});

describe("fault drill: the disk under ELNOR_MEMORY fills up", () => {
  // Mounting needs root (or CAP_SYS_ADMIN); elsewhere the drill is skipped and says why.
  it.skipIf(!MOUNTABLE)(
    "answers writes with MEMORY_WRITE_FAILED (507), corrupts nothing, stays up, and recovers once space is back (needs root to mount a tmpfs)",
    async () => {
      await withSmallDisk(async (disk) => {
        const batch = clickBatch(disk.sessionId);
        const results = await writeOnFullDisk(disk, batch);
        for (const result of results) {
          // Small appends may still fit in the last page of a log; anything else is the coded 507.
          expect.soft([200, 507], `${result.name} → ${result.status} ${JSON.stringify(result.body)}`).toContain(result.status);
          if (result.status === 507)
            expect.soft(ApiErrorResponseSchema.parse(result.body).error, result.name).toMatchObject({ code: "MEMORY_WRITE_FAILED", retryable: true });
        }
        // The batch needs new pages: refused as a whole, not one event of it stored.
        expect(results[0]?.status).toBe(507);
        expect(readLog(path.join(disk.root, "system/learning/observations", disk.sessionId, "events.jsonl"))).toEqual([]);
        expect((await fetch(`${disk.agent?.url}/api/health`)).status).toBe(200);
        // A failed append is cut back to its last durable size; a failed view write leaves no temp file.
        expect(checkMemoryIntegrity(disk.root)).toEqual({ corrupt: [], tornTails: [], leftovers: [] });

        // Space comes back: the same batch goes through without a restart.
        rmSync(disk.ballast);
        const api = apiClient(disk.agent?.url ?? "", disk.token);
        const retried = await api.ok("POST", "/api/observations/events", batch);
        expect(retried.rejected).toEqual([]);
        expect((await api.call("POST", `/api/learn/sessions/${disk.sessionId}/mark-step`, { step_label: "Export" })).status).toBe(200);

        // A restart reads back a consistent state: every acknowledged event once, every file whole.
        expect(await disk.agent?.stop()).toBe(0);
        disk.agent = await startAgentProcess(disk.root, disk.env);
        const served = await servedEventIds(apiClient(disk.agent.url, disk.token), disk.sessionId);
        expect(duplicatesIn(served)).toEqual([]);
        expect(retried.accepted.filter((id: string) => !served.includes(id))).toEqual([]);
        expect(checkMemoryIntegrity(disk.root)).toEqual({ corrupt: [], tornTails: [], leftovers: [] });

        // Starting on a full disk fails with the coded reason instead of half-starting.
        expect(await disk.agent.stop()).toBe(0);
        disk.agent = undefined;
        fillUp(disk.ballast);
        const refused = await runAgentExpectingFailure(disk.root);
        expect(refused.code).toBe(1);
        expect(refused.output).toContain("MEMORY_WRITE_FAILED");
        rmSync(disk.ballast);
        disk.agent = await startAgentProcess(disk.root, disk.env);
        expect((await fetch(`${disk.agent.url}/api/health`)).status).toBe(200);
      });
    },
    120_000,
  );

  it.skipIf(!MOUNTABLE)(
    "refuses a batch that only partly fits, whole, and the log stays readable (needs root to mount a tmpfs)",
    async () => {
      await withSmallDisk(async (disk) => {
        const api = apiClient(disk.agent?.url ?? "", disk.token);
        const eventsFile = path.join(disk.root, "system/learning/observations", disk.sessionId, "events.jsonl");
        const first = await api.ok("POST", "/api/observations/events", clickBatch(disk.sessionId));
        expect(first.accepted).toHaveLength(40);
        // Full, then three pages free again: a 40-event batch (about 20 KB) only partly fits, and the
        // kernel takes what fits without an error (a short write).
        fillUp(disk.ballast);
        truncateSync(disk.ballast, statSync(disk.ballast).size - 3 * 4096);
        const partial = await api.call("POST", "/api/observations/events", clickBatch(disk.sessionId));
        expect(partial.status, JSON.stringify(partial.body)).toBe(507);
        expect(ApiErrorResponseSchema.parse(partial.body).error.code).toBe("MEMORY_WRITE_FAILED");
        expect(checkMemoryIntegrity(disk.root)).toEqual({ corrupt: [], tornTails: [], leftovers: [] });
        expect(readLog<{ event_id: string }>(eventsFile).map((event) => event.event_id)).toEqual(first.accepted);

        rmSync(disk.ballast);
        const after = await api.ok("POST", "/api/observations/events", clickBatch(disk.sessionId));
        expect(after.accepted).toHaveLength(40);
        expect(readLog<{ event_id: string }>(eventsFile).map((event) => event.event_id)).toEqual([...first.accepted, ...after.accepted]);
        expect(checkMemoryIntegrity(disk.root)).toEqual({ corrupt: [], tornTails: [], leftovers: [] });
      });
    },
    60_000,
  );

  // Found by this drill: on a disk full to the byte, appends still fitted in the last page of a
  // log while the runtime view could not be written, so a session change landed in some files and
  // was answered 507. Changes are now refused before they start while the disk is full
  // (agent/memory/disk-space-guard.ts).
  it.skipIf(!MOUNTABLE)(
    "a request answered 507 on a full disk changed nothing (needs root to mount a tmpfs)",
    async () => {
      await withSmallDisk(async (disk) => {
        for (const result of await writeOnFullDisk(disk, clickBatch(disk.sessionId))) {
          if (result.status !== 507) continue;
          const real = result.changed.filter((change) => !/^\+ .*\((dir .*|file size=0 .*)\)$/.test(change));
          expect.soft(real, `${result.name} answered 507 but changed ELNOR_MEMORY`).toEqual([]);
        }
      });
    },
    120_000,
  );
});

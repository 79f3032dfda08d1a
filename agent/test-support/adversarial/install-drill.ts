import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cp, rm } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { toAgentSkillsMarkdown } from "../../../shared/skills/agent-skills-format";
import { startAgentProcess } from "../agent-process";
import { apiClient, prepareInstalledAbility, prepareReadyProposal } from "./api-fixture";
import { checkMemoryIntegrity, filesUnder, killHard, readLog } from "./drill-checks";
import { DRILL_SEED, ROUNDS, prepareMemory, tokenOf } from "./drill-memory";
import { startListeningAgent } from "./listening-agent";
import { watchTree } from "./watch-tree";

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
export interface InstallAftermath {
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
export const COMPLETE_INSTALL = ["SKILL.md", "support-packs.json", "tests/flow.recorder.json", "tests/trigger-tests.json"];

/**
 * The install drill: a prepared ELNOR_MEMORY (one ability installed, a proposal ready for review)
 * copied afresh each round, the real agent asked to install, and killed at a seeded point of the
 * saga; then restarted (in process) on what the crash left. Its ELNOR_MEMORY copies live under `scratch`.
 */
export async function runInstallDrill(scratch: string): Promise<InstallAftermath[]> {
  const { root: template, value } = await prepareMemory(scratch, "install-template", async (api) => {
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

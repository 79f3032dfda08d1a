import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { promisify } from "node:util";
import path from "node:path";
import { agentLoggerOptions, buildApp } from "../../agent/app/app";
import { openMemoryStore } from "../../agent/memory/memory-store";
import { MemoryPaths } from "../../agent/memory/memory-paths";
import { readyProposal, type AgentCall } from "../../agent/test-support/ready-proposal";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const HAS_UUID = new RegExp(UUID.source);
const GOALS = ["Export the monthly invoices", "Download the payroll report", "Archive the closed support tickets", "Refund the shipping fee of an order"];
/** The agent's logs (one file each, every install adds lines); other files without an id in their path are one per agent (token, current views). */
const AGENT_LOG = /\.jsonl$/;

interface Template {
  skill: string;
  /** Every file of the memory after one demonstration was learned and installed, by relative path. */
  files: Map<string, string>;
}

async function walk(root: string, relative = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(root, relative), { withFileTypes: true })) {
    const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await walk(root, child)));
    else out.push(child);
  }
  return out;
}

/**
 * One real learn → install through the agent's own routes (the same calls the side panel makes):
 * every file it leaves in ELNOR_MEMORY and the assistant's workspace is the template of one install.
 */
async function recordTemplate(goal: string): Promise<Template> {
  const { root, cleanup } = await makeTempMemoryRoot("elnor-bench-template-");
  const memory = await openMemoryStore({ root });
  const app = await buildApp({
    memory,
    port: 47996,
    openclawWorkspace: `${root}/openclaw-workspace`,
    logger: agentLoggerOptions("silent"),
    chromiumPath: "/nonexistent",
  });
  try {
    await app.ready();
    const token = ((await memory.readText(MemoryPaths.agentToken)) ?? "").trim();
    const call: AgentCall = async (method, url, payload) => {
      const response = await app.inject({
        method,
        url,
        headers: { host: "127.0.0.1:47996", authorization: `Bearer ${token}` },
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      });
      return { status: response.statusCode, body: response.json() as Record<string, any> };
    };
    const { proposalId } = await readyProposal(call, goal);
    const installed = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
    if (installed.status !== 200) throw new Error(`template install failed: ${JSON.stringify(installed.body)}`);
  } catch (error) {
    await app.close();
    await memory.close();
    await cleanup();
    throw error;
  }
  await app.close();
  await memory.close();
  try {
    const files = new Map<string, string>();
    for (const file of await walk(root)) files.set(file, await readFile(path.join(root, file), "utf8"));
    const registry = files.get(MemoryPaths.abilityRegistry) ?? "";
    const skill = (JSON.parse(registry.split("\n")[0] ?? "{}") as { skill_name?: string }).skill_name;
    if (skill === undefined) throw new Error("the template install wrote no registry line");
    return { skill, files };
  } finally {
    await cleanup();
  }
}

/** A copy of a template's text with fresh ids (each UUID mapped to a new one) and its own skill name. */
function copier(template: Template, index: number) {
  const ids = new Map<string, string>();
  const skill = `${template.skill}-${index}`.slice(0, 64);
  return (text: string) =>
    text
      .replace(UUID, (id) => {
        let fresh = ids.get(id);
        if (fresh === undefined) ids.set(id, (fresh = randomUUID()));
        return fresh;
      })
      .replaceAll(template.skill, skill);
}

export interface ScaleMemory {
  abilities: number;
  receipts: number;
  checkpointReceipts: number;
  files: number;
  bytes: number;
}

/**
 * An ELNOR_MEMORY as an agent that has learned and installed `abilities` skills and written
 * `receipts` receipts would have it. A few demonstrations are learned and installed for real; each
 * install is then repeated byte for byte with fresh ids and its own skill name (its session,
 * proposal, drafts, interpretation, observations, installed files, capability manifest and
 * metadata, workspace projection, and its lines in every log). Receipts beyond those of the
 * installs are the receipts of further sessions (the same lifecycle receipts, fresh ids), as a
 * memory whose older sessions were archived keeps them. The current views (bridge, availability,
 * catalog) are rebuilt by the agent itself on its first start.
 */
export async function buildScaleMemory(
  root: string,
  workspace: string,
  counts: { abilities: number; receipts: number; checkpointReceipts?: number },
): Promise<ScaleMemory> {
  const templates: Template[] = [];
  for (const goal of GOALS) templates.push(await recordTemplate(goal));
  const logs = new Map<string, string[]>();
  const single = new Map<string, string>();
  const perInstall: Array<[string, string]> = [];
  const write = async (relative: string, text: string) => {
    const absolute = relative.startsWith("openclaw-workspace/")
      ? path.join(workspace, relative.slice("openclaw-workspace/".length))
      : path.join(root, relative);
    await mkdir(path.dirname(absolute), { recursive: true });
    await writeFile(absolute, text, { mode: 0o600 });
  };
  let bytes = 0;
  let files = 0;
  const flush = async () => {
    const batch = perInstall.splice(0, perInstall.length);
    for (let start = 0; start < batch.length; start += 64) {
      await Promise.all(batch.slice(start, start + 64).map(([relative, text]) => write(relative, text)));
    }
    files += batch.length;
    bytes += batch.reduce((sum, [, text]) => sum + Buffer.byteLength(text), 0);
  };
  for (let index = 0; index < counts.abilities; index += 1) {
    const template = templates[index % templates.length] as Template;
    const copy = copier(template, index);
    for (const [relative, text] of template.files) {
      if (relative === MemoryPaths.agentLock) continue;
      if (HAS_UUID.test(relative) || relative.includes(template.skill)) {
        perInstall.push([copy(relative), copy(text)]);
      } else if (AGENT_LOG.test(relative)) {
        const lines = logs.get(relative) ?? [];
        lines.push(
          ...copy(text)
            .split("\n")
            .filter((line) => line !== ""),
        );
        logs.set(relative, lines);
      } else if (index === 0) {
        single.set(relative, text);
      }
    }
    if (perInstall.length > 2_000) await flush();
  }
  await flush();
  // Receipts of sessions learned before these (archived since): the same lifecycle receipts, fresh ids.
  const receipts = logs.get(MemoryPaths.receipts) ?? [];
  for (let index = 0; receipts.length < counts.receipts; index += 1) {
    const template = templates[index % templates.length] as Template;
    const copy = copier(template, counts.abilities + index);
    receipts.push(
      ...copy(template.files.get(MemoryPaths.receipts) ?? "")
        .split("\n")
        .filter((line) => line !== ""),
    );
  }
  receipts.length = counts.receipts;
  logs.set(MemoryPaths.receipts, receipts);
  const checkpoints = checkpointReceiptLines(logs.get(MemoryPaths.abilityRegistry) ?? [], counts.checkpointReceipts ?? 0);
  if (checkpoints.length > 0) logs.set(MemoryPaths.checkpointReceipts, checkpoints);
  for (const [relative, lines] of logs) {
    const text = `${lines.join("\n")}\n`;
    await write(relative, text);
    files += 1;
    bytes += Buffer.byteLength(text);
  }
  for (const [relative, text] of single) {
    await write(relative, text);
    files += 1;
    bytes += Buffer.byteLength(text);
  }
  await rm(path.join(root, MemoryPaths.agentLock), { force: true });
  return { abilities: counts.abilities, receipts: receipts.length, checkpointReceipts: checkpoints.length, files, bytes };
}

/**
 * Checkpoint receipts (§0C.9B) of runs of the installed abilities, spread evenly over them: three
 * checkpoints a run, most reached, some skipped or failed, as runs through the bridge leave them.
 */
function checkpointReceiptLines(registryLines: readonly string[], count: number): string[] {
  const abilityIds = registryLines.map((line) => (JSON.parse(line) as { ability_id: string }).ability_id);
  const lines: string[] = [];
  const start = Date.parse("2026-11-01T00:00:00.000Z");
  for (let index = 0; index < count && abilityIds.length > 0; index += 1) {
    const run = Math.floor(index / 3);
    lines.push(
      JSON.stringify({
        receipt_id: randomUUID(),
        dispatch_id: `dispatch-${run}`,
        ability_id: abilityIds[run % abilityIds.length],
        checkpoint_id: `checkpoint-${(index % 3) + 1}`,
        status: index % 17 === 0 ? "failed" : index % 11 === 0 ? "skipped" : "reached",
        evidence: "The page showed what the checkpoint expects.",
        created_at: new Date(start + index * 1000).toISOString(),
        schema_version: 1,
      }),
    );
  }
  return lines;
}

/**
 * Issue 32: a scale memory built once per machine into a cache (`$ELNOR_BENCH_CACHE`, default
 * `<tmp>/elnor-bench-cache`; 10,000 abilities take minutes and ~1 GB) and copied into `root` for each
 * run, since an agent changes the memory it runs on (views, tokens, retention). The cache is keyed
 * by the counts; delete it after changing how a memory is built.
 */
export async function cachedScaleMemory(root: string, counts: { abilities: number; receipts: number; checkpointReceipts: number }): Promise<ScaleMemory> {
  const cache = path.join(
    process.env.ELNOR_BENCH_CACHE ?? path.join(os.tmpdir(), "elnor-bench-cache"),
    `scale-${counts.abilities}-${counts.receipts}-${counts.checkpointReceipts}-v1`,
  );
  const marker = path.join(cache, "built.json");
  let built = await readFile(marker, "utf8").then(
    (text) => JSON.parse(text) as ScaleMemory,
    () => undefined,
  );
  if (built === undefined) {
    const partial = `${cache}.partial`;
    await rm(partial, { recursive: true, force: true });
    await mkdir(partial, { recursive: true });
    built = await buildScaleMemory(path.join(partial, "memory"), path.join(partial, "memory", "openclaw-workspace"), counts);
    await writeFile(path.join(partial, "built.json"), JSON.stringify(built));
    await rm(cache, { recursive: true, force: true });
    await rename(partial, cache);
  }
  await promisify(execFile)("cp", ["-a", `${path.join(cache, "memory")}/.`, root]);
  return built;
}

import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { cp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { startAgentProcess, type AgentProcess } from "../agent-process";
import { apiClient, clickEvent, startCapturingSession } from "./api-fixture";
import { killHard } from "./drill-checks";
import { prepareMemory, tokenOf } from "./drill-memory";
import { diffMemoryTrees, readMemoryTree } from "./memory-tree";

/** The full-disk drill's disk (`agent/adversarial/fault-drill-disk.test.ts`): a real tmpfs that fills up, never a mocked ENOSPC. */

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
export function fillUp(file: string): number {
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

export const MOUNTABLE = canMountTmpfs();

/** One write request sent while the disk is full, and what it changed. */
export interface FullDiskWrite {
  name: string;
  status: number;
  body: any;
  changed: string[];
}

export interface SmallDisk {
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
export async function withSmallDisk(scratch: string, run: (disk: SmallDisk) => Promise<void>): Promise<void> {
  const { root: template, value: sessionId } = await prepareMemory(scratch, `disk-template-${crypto.randomUUID()}`, (api) =>
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
    // Issue 32: the first skill-folder check runs once the agent is ready and rewrites the availability views of a
    // copied memory (its workspace at another path); reading the snapshot waits for it, before the disk is filled.
    await apiClient(disk.agent.url, disk.token).call("GET", "/api/abilities/availability");
    await run(disk);
  } finally {
    if (disk.agent !== undefined) await killHard(disk.agent.proc);
    execFileSync("umount", [mount]);
  }
}

/** Fills the disk, then asks for the writes a capturing session makes; the disk stays full. */
export async function writeOnFullDisk(disk: SmallDisk, batch: Record<string, unknown>): Promise<FullDiskWrite[]> {
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

export const clickBatch = (sessionId: string) => ({
  batch_id: crypto.randomUUID(),
  events: Array.from({ length: 40 }, (_, index) => clickEvent(sessionId, `Row ${index}`)),
  snapshots: [],
  schema_version: 1,
});

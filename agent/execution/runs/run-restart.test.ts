import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunResponseSchema, type RunRecord } from "../../../shared/execution/run-contract";
import { startAgentProcess, type AgentProcess } from "../../test-support/agent-process";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../test-support/run-fixture";
import { makeTempMemoryRoot } from "../../test-support/temp-memory";

/**
 * Issue #21: the agent is SIGKILLed in the middle of a run (the real process, as `npm start` runs
 * it, with its managed Chromium on a page that answers slowly). Started again on the same
 * ELNOR_MEMORY, the run reads `interrupted` — never `running` — and is not resumed.
 */

let root: string;
let cleanup: () => Promise<void>;
let browserTemp: string;
let site: RunFixtureSite;
let agent: AgentProcess | undefined;

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-run-restart-"));
  // The agent's managed Chromium makes its profile here, so the test can find what it left behind.
  browserTemp = await mkdtemp(path.join(tmpdir(), "elnor-run-restart-tmp-"));
  site = await serveRunFixtureSite();
});
afterAll(async () => {
  await agent?.stop();
  killLeftovers();
  await site?.close();
  await cleanup?.();
  await rm(browserTemp, { recursive: true, force: true });
});

/** Chromium processes started for this test's profiles only (by pid), should any outlive their agent. */
function leftoverPids(): number[] {
  const listing = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return listing
    .split("\n")
    .filter((line) => line.includes(browserTemp))
    .map((line) => Number(line.trim().split(/\s+/)[0]))
    .filter((pid) => Number.isInteger(pid) && pid > 0);
}
function killLeftovers() {
  for (const pid of leftoverPids()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

function client(process: AgentProcess, token: string) {
  return async (method: "GET" | "POST", route: string, payload?: unknown) => {
    const response = await fetch(`${process.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { "content-type": "application/json" }) },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text === "" ? {} : JSON.parse(text)) as Record<string, any> };
  };
}

describe("a run when the agent is killed", () => {
  it("reads interrupted after a SIGKILL mid-run and a restart on the same ELNOR_MEMORY", async () => {
    agent = await startAgentProcess(root, { TMPDIR: browserTemp });
    const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
    let call = client(agent, token);
    const { abilityId } = await installContactAbility(call, site);
    // The contact page takes 30 s to answer: the run is surely going when the agent dies.
    site.slowDown(30_000);
    const started = await call("POST", "/api/runs", { ability_id: abilityId, inputs: { message: "Hi", access_code: "code-9999" }, schema_version: 1 });
    expect(started.status).toBe(202);
    const dispatchId = RunResponseSchema.parse(started.body).run.dispatch_id;
    const deadline = Date.now() + 30_000;
    let run: RunRecord;
    for (;;) {
      run = RunResponseSchema.parse((await call("GET", `/api/runs/${dispatchId}`)).body).run;
      if (run.state === "running" && site.requests.some((request) => request.path === "/contact")) break;
      if (Date.now() > deadline || run.completed_at !== undefined) throw new Error(`the run was not going: ${JSON.stringify(run)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    expect(leftoverPids().length, "the run's Chromium is found by its profile folder").toBeGreaterThan(0);
    const killed = new Promise((resolve) => agent?.proc.once("exit", resolve));
    agent.proc.kill("SIGKILL");
    await killed;
    // On disk, the run is still as the agent last wrote it: not over.
    const onDisk = JSON.parse(await readFile(path.join(root, "system/execution/runs", `${dispatchId}.json`), "utf8")) as RunRecord;
    expect(onDisk.state).toBe("running");

    // Its managed Chromium goes with it (the DevTools pipe closes), leaving no browser behind.
    const gone = Date.now() + 10_000;
    while (leftoverPids().length > 0 && Date.now() < gone) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(leftoverPids()).toEqual([]);

    site.slowDown(0);
    agent = await startAgentProcess(root, { TMPDIR: browserTemp });
    call = client(agent, token);
    const after = RunResponseSchema.parse((await call("GET", `/api/runs/${dispatchId}`)).body).run;
    expect(after).toMatchObject({ state: "interrupted", failure: { code: "AGENT_STOPPED" } });
    expect(after.completed_at).toBeDefined();
    const listed = (await call("GET", `/api/runs?ability_id=${abilityId}`)).body.runs as RunRecord[];
    expect(listed.map((candidate) => [candidate.dispatch_id, candidate.state])).toEqual([[dispatchId, "interrupted"]]);
    // Its one capability-use receipt says it failed.
    const uses = (await readFile(path.join(root, "system/capabilities/use_receipts.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { dispatch_id: string; result: string });
    expect(uses.filter((receipt) => receipt.dispatch_id === dispatchId).map((receipt) => receipt.result)).toEqual(["failure"]);
  }, 90_000);
});

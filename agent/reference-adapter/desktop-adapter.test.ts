import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ObservedActionEventWithDetailSchema } from "../../shared/learning/observed-actions/observed-action";
import { MASKED_ARGUMENT } from "../../shared/observation/command-masking";
import { startAgentProcess, type AgentProcess } from "../test-support/agent-process";
import { makeTempMemoryRoot } from "../test-support/temp-memory";

const cli = fileURLToPath(new URL("./desktop-adapter.ts", import.meta.url));
let root: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess;
let token: string;

beforeEach(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot());
  agent = await startAgentProcess(root);
  token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
});
afterEach(async () => {
  await agent.stop();
  await cleanup();
});

function runCli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const proc = spawn(process.execPath, ["--import", "tsx", cli, ...args], {
    env: { ...process.env, ELNOR_AGENT_URL: agent.url, ELNOR_MEMORY: root },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => proc.on("exit", (code) => resolve({ code, stderr })));
}

const api = (method: string, route: string, body?: unknown) =>
  fetch(`${agent.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).then((response) => response.json() as Promise<Record<string, any>>);

describe("reference desktop adapter", () => {
  it("registers, then reports a command with secret-looking arguments masked, and exits with the command's code", async () => {
    expect((await runCli(["--register"])).code).toBe(0);
    const created = await api("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_family: "node",
      target_app_whitelist: ["node"],
    });
    const id = created.session.learn_session_id as string;
    const started = await api("POST", `/api/learn/sessions/${id}/start`);
    expect(started.adapters_armed).toEqual(["process_launch", "terminal_command"]);

    const secret = "CANARY-hunter2-token";
    const result = await runCli([process.execPath, "-e", "process.exit(3)", "--", "--password", secret]);
    expect(result.code).toBe(3);

    const text = await readFile(path.join(root, `system/learning/observations/${id}/events.jsonl`), "utf8");
    expect(text).not.toContain(secret);
    const events = text
      .trim()
      .split("\n")
      .map((line) => ObservedActionEventWithDetailSchema.parse(JSON.parse(line)));
    expect(events.map((event) => event.adapter_kind)).toEqual(["process_launch", "terminal_command"]);
    expect(events[1]?.desktop_detail).toMatchObject({ exit_code: 3, args: ["-e", "process.exit(3)", "--", "--password", MASKED_ARGUMENT] });
    expect(events[1]?.action_label).toMatch(/^Run 'node -e process\.exit\(3\) -- --password «masked»'$/);
    expect((await api("GET", `/api/learn/sessions/${id}/detail`)).state).toBe("capturing");
  });
});

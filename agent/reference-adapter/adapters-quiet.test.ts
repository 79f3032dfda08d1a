import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../test-support/agent-process";
import { makeTempMemoryRoot } from "../test-support/temp-memory";

/**
 * Issue #30: the reference adapters go quiet at Stop. A real agent (as `npm start` runs it, its
 * request log on) counts every request that reaches it; zsh runs the shell integration as a
 * person's terminal would, and the desktop adapter CLI wraps a command. While the session
 * captures, commands arrive; once it is stopped, commands typed in the terminal and run through
 * the CLI make zero requests of any kind.
 */
const integration = fileURLToPath(new URL("./shell-integration.sh", import.meta.url));
const cli = fileURLToPath(new URL("./desktop-adapter.ts", import.meta.url));
const ZSH = "/usr/bin/zsh";
const CANARY = "Qx9-after-stop-secret";

let root: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess;
let token: string;
let home: string;
let shell: ChildProcessWithoutNullStreams;

const api = async (method: string, route: string, body?: unknown) => {
  const response = await fetch(`${agent.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, any>;
};

async function waitFor<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    last = await probe();
  }
  return last;
}

/** Every request the agent logged ("incoming request", method and path only), from this offset of its output. */
function requestsSince(offset: number): string[] {
  return agent
    .output()
    .slice(offset)
    .split("\n")
    .flatMap((line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; req?: { method?: string; path?: string } };
        return entry.msg === "incoming request" ? [`${entry.req?.method} ${entry.req?.path}`] : [];
      } catch {
        return [];
      }
    });
}

function runCli(args: string[]): Promise<number | null> {
  const proc = spawn(process.execPath, ["--import", "tsx", cli, ...args], {
    env: { ...process.env, ELNOR_AGENT_URL: agent.url, ELNOR_MEMORY: root, ELNOR_TOKEN: "" },
    stdio: "ignore",
  });
  return new Promise((resolve) => proc.on("exit", (code) => resolve(code)));
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("adapters at Stop (issue #30)", () => {
  beforeAll(async () => {
    ({ root, cleanup } = await makeTempMemoryRoot());
    agent = await startAgentProcess(root, { ELNOR_LOG_LEVEL: "info" });
    token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
    home = await mkdtemp(path.join(tmpdir(), "elnor-quiet-home-"));
    // As a person sets it up: the token comes from ELNOR_MEMORY; the presence timer's period is
    // longer than the test, so any request in the window would be one a command caused.
    shell = spawn(ZSH, ["-f", "-i"], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        ELNOR_AGENT_URL: agent.url,
        ELNOR_MEMORY: root,
        ELNOR_NODE: process.execPath,
        ELNOR_SHELL_PRESENCE_S: "600",
        HISTFILE: path.join(home, "history"),
      },
      cwd: home,
    });
    shell.stdout.resume();
    shell.stderr.resume();
  }, 60_000);

  afterAll(async () => {
    shell?.stdin.end("exit\n");
    await agent?.stop();
    await cleanup?.();
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  it("sends commands while the session captures, and after Stop neither the terminal nor the CLI makes a single request", async () => {
    shell.stdin.write(`source ${integration}\n`);
    await waitFor(
      async () => (await api("GET", "/api/observation/adapters")).adapters as Array<{ adapter_id: string; healthy: boolean }>,
      (adapters) => adapters.some((adapter) => adapter.adapter_id === "reference-desktop-cli:terminal_command" && adapter.healthy),
      "the shell's adapter to report in",
    );
    expect(await runCli(["--register"])).toBe(0);
    const created = await api("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_family: "desktop",
    });
    const id = created.session.learn_session_id as string;
    expect((await api("POST", `/api/learn/sessions/${id}/start`)).session.state).toBe("armed");

    // Capturing: both paths reach the agent.
    shell.stdin.write("echo while-capturing\n");
    expect(await runCli([process.execPath, "-e", "process.exit(0)"])).toBe(0);
    const seen = await waitFor(
      async () => (await api("GET", `/api/learn/sessions/${id}/observations`)).events as Array<{ action_label: string }>,
      (events) => events.length >= 3,
      "the terminal's command and the CLI's two events",
    );
    expect(seen.map((event) => event.action_label).sort()).toEqual(["Launch 'node'", "Run 'echo while-capturing'", "Run 'node -e process.exit(0)'"]);

    expect((await api("POST", `/api/learn/sessions/${id}/stop`)).session.state).toBe("stopped");
    await settle(1500);
    const from = agent.output().length;

    shell.stdin.write("echo after-stop\n");
    shell.stdin.write(`node -e "process.exit(3)" -- --password ${CANARY}\n`);
    shell.stdin.write("ls\n");
    expect(await runCli([process.execPath, "-e", "process.exit(5)", "--", "--password", CANARY])).toBe(5);
    shell.stdin.write("touch typed-after-stop\n");
    await waitFor(
      async () => existsSync(path.join(home, "typed-after-stop")),
      (done) => done,
      "the terminal to run every command",
    );
    // Each command's reporter runs in the background after its prompt; give them all time to finish.
    await settle(4000);

    // The count sees what the adapters sent while capturing …
    expect(requestsSince(0)).toEqual(expect.arrayContaining(["POST /api/observations/events", "POST /api/observation/adapters/heartbeat"]));
    // … and nothing once the session stopped.
    expect(requestsSince(from)).toEqual([]);
    expect(((await api("GET", `/api/learn/sessions/${id}/observations`)).events as unknown[]).length).toBe(3);
  }, 90_000);
});

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LearnSession } from "../../shared/learning/sessions/learn-session";
import { MASKED_ARGUMENT } from "../../shared/observation/command-masking";
import { startAgentProcess, type AgentProcess } from "../test-support/agent-process";
import { makeTempMemoryRoot } from "../test-support/temp-memory";
import { sessionTakesCommands, shellCommandEvent, splitCommandLine } from "./shell-command";

const integration = fileURLToPath(new URL("./shell-integration.sh", import.meta.url));
const CANARY = "Zq7-shell-canary-secret";

function session(changes: Partial<LearnSession>): LearnSession {
  return {
    learn_session_id: "6f1c2c1e-7d3a-4b8e-9a51-2f0d3c4b5a69",
    entry_mode: "demonstrating_skill",
    observation_mode: "outside_agent",
    build_policy: "build_then_review",
    execution_mode: "guided",
    target_kind: "new_skill",
    state: "capturing",
    actor_mode: "mixed",
    target_app_family: "desktop",
    target_app_whitelist: [],
    active_trace_ids: [],
    active_observation_batch_ids: [],
    created_at: "2026-11-24T08:00:00.000Z",
    updated_at: "2026-11-24T08:00:00.000Z",
    schema_version: 1,
    ...changes,
  };
}

describe("shell command reports", () => {
  it("splits a command line as the shell would, quotes and backslashes honoured", () => {
    expect(splitCommandLine(`git commit -m "fix: the \\"quoted\\" bug" 'single quoted' a\\ b`)).toEqual([
      "git",
      "commit",
      "-m",
      'fix: the "quoted" bug',
      "single quoted",
      "a b",
    ]);
    expect(splitCommandLine("   ")).toEqual([]);
    expect(splitCommandLine(`echo ""`)).toEqual(["echo", ""]);
  });

  it("masks a secret argument before the event exists, keeps the exit code, and names only the last folder", () => {
    const event = shellCommandEvent(
      {
        line: `psql --host db.internal --password ${CANARY} -c "select 1"`,
        exitCode: 2,
        durationMs: 41.6,
        cwd: "/home/zq7user/projects/billing",
        startedAt: new Date("2026-11-24T07:59:59Z"),
      },
      {
        sessionId: "6f1c2c1e-7d3a-4b8e-9a51-2f0d3c4b5a69",
        eventId: "0b9d3c4e-1f2a-4b5c-8d6e-7f8091a2b3c4",
        now: new Date("2026-11-24T08:00:00Z"),
        shell: "bash",
      },
    );
    expect(JSON.stringify(event)).not.toContain(CANARY);
    expect(JSON.stringify(event)).not.toContain("zq7user");
    expect(event?.desktop_detail).toEqual({
      program: "psql",
      args: ["--host", "db.internal", "--password", MASKED_ARGUMENT, "-c", "select 1"],
      exit_code: 2,
      duration_ms: 42,
      cwd_name: "billing",
    });
    expect(event?.action_label).toBe(`Run 'psql --host db.internal --password ${MASKED_ARGUMENT} -c select 1'`);
    // When it ran, not when it was reported: the reporter runs in the background.
    expect(event?.created_at).toBe("2026-11-24T07:59:59.000Z");
  });

  it("names the program after variable assignments and masks a secret one, and masks curl's password and mysql's glued -p", () => {
    const context = {
      sessionId: "6f1c2c1e-7d3a-4b8e-9a51-2f0d3c4b5a69",
      eventId: "0b9d3c4e-1f2a-4b5c-8d6e-7f8091a2b3c4",
      now: new Date("2026-11-24T08:00:00Z"),
      shell: "bash",
    };
    const run = (line: string) => shellCommandEvent({ line, exitCode: 0, durationMs: 5, cwd: "/srv/shop" }, context);
    // Short and word-like: only the command's shape can tell it is a secret.
    const secret = "Zq7-pw";
    const env = run(`PGPASSWORD=${secret} psql -h db.internal -c "select 1"`);
    expect(env?.desktop_detail).toMatchObject({ program: "psql", args: ["-h", "db.internal", "-c", "select 1"] });
    expect(env?.action_label).toBe(`Run 'PGPASSWORD=${MASKED_ARGUMENT} psql -h db.internal -c select 1'`);
    expect(run(`FOO=${secret}`)).toBeUndefined();
    for (const line of [
      `curl -s -u deploy:${secret} http://127.0.0.1:9/health`,
      `cd shop && mysql -uroot -p${secret} shop`,
      `curl -H "Authorization: Bearer ${secret}" https://api.example.com`,
    ]) {
      expect(JSON.stringify(run(line)), line).not.toContain(secret);
    }
  });

  it("reports the line that opens a here-document, never its body, and masks a here-string's text", () => {
    const context = {
      sessionId: "6f1c2c1e-7d3a-4b8e-9a51-2f0d3c4b5a69",
      eventId: "0b9d3c4e-1f2a-4b5c-8d6e-7f8091a2b3c4",
      now: new Date("2026-11-24T08:00:00Z"),
      shell: "bash",
    };
    const secret = "Zq7-heredoc";
    const heredoc = shellCommandEvent(
      { line: `mysql -uroot shop <<'SQL' > out.txt\nALTER USER 'app' IDENTIFIED BY '${secret}';\nSQL`, exitCode: 0, durationMs: 5, cwd: "/srv" },
      context,
    );
    expect(JSON.stringify(heredoc)).not.toContain(secret);
    expect(heredoc?.desktop_detail?.args).toEqual(["-uroot", "shop", "<<SQL", ">", "out.txt"]);
    expect(heredoc?.action_label).toContain("(its here-document is not recorded)");
    const herestring = shellCommandEvent({ line: `mysql -uroot shop <<< "SET PASSWORD = '${secret}'"`, exitCode: 0, durationMs: 5, cwd: "/srv" }, context);
    expect(JSON.stringify(herestring)).not.toContain(secret);
    expect(herestring?.desktop_detail?.args).toEqual(["-uroot", "shop", "<<<", MASKED_ARGUMENT]);
  });

  it("reports only while a session that watches this computer is armed or capturing, and not a command started before it", () => {
    expect(sessionTakesCommands(undefined)).toBe(false);
    expect(sessionTakesCommands(session({}), new Date("2026-11-24T07:59:00Z"))).toBe(false);
    expect(sessionTakesCommands(session({}), new Date("2026-11-24T08:01:00Z"))).toBe(true);
    expect(sessionTakesCommands(session({ state: "capturing" }))).toBe(true);
    expect(sessionTakesCommands(session({ state: "armed" }))).toBe(true);
    for (const state of ["idle", "paused", "stopped", "cancelled", "ready_for_review"] as const)
      expect(sessionTakesCommands(session({ state })), state).toBe(false);
    expect(sessionTakesCommands(session({ target_app_family: "browser", target_app_whitelist: ["shop.example.com"] }))).toBe(false);
    expect(sessionTakesCommands(session({ target_app_family: undefined, target_app_whitelist: ["shop.example.com"] }))).toBe(false);
    expect(sessionTakesCommands(session({ observation_mode: "none" }))).toBe(false);
  });
});

/** bash and zsh, each interactive without the user's rc files: their prompt hooks run as in a terminal. */
const SHELLS = [
  { name: "bash", args: ["--norc", "--noprofile", "-i"] },
  { name: "zsh", args: ["-f", "-i"] },
] as const;

describe.each(SHELLS)("$name shell integration against a real agent", ({ name, args }) => {
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

  async function filesUnder(dir: string): Promise<string[]> {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
  }

  beforeAll(async () => {
    ({ root, cleanup } = await makeTempMemoryRoot());
    agent = await startAgentProcess(root);
    token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
    home = await mkdtemp(path.join(tmpdir(), "elnor-shell-home-"));
    shell = spawn(name, [...args], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        ELNOR_AGENT_URL: agent.url,
        ELNOR_TOKEN: token,
        ELNOR_NODE: process.execPath,
        HISTFILE: path.join(home, "history"),
        HISTCONTROL: "ignorespace",
      },
      cwd: home,
    });
    // As many people set it: a line typed with a leading space stays out of history.
    if (name === "zsh") shell.stdin.write("setopt histignorespace\n");
    shell.stdout.resume();
    shell.stderr.resume();
  }, 60_000);

  afterAll(async () => {
    shell?.stdin.end("exit\n");
    await agent?.stop();
    await cleanup?.();
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  it("registers when sourced, reports each command of a capturing desktop session with its exit code and the secret masked, and nothing before the session", async () => {
    shell.stdin.write(`source ${integration}\n`);
    shell.stdin.write("echo before-any-session\n");
    await waitFor(
      async () => (await api("GET", "/api/observation/adapters")).adapters as Array<{ adapter_id: string; healthy: boolean }>,
      (adapters) => adapters.some((adapter) => adapter.adapter_id === "reference-desktop-cli:terminal_command" && adapter.healthy),
      "the shell's adapter to report in",
    );
    const created = await api("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_family: "desktop",
    });
    const id = created.session.learn_session_id as string;
    expect((await api("POST", `/api/learn/sessions/${id}/start`)).session.state).toBe("armed");

    shell.stdin.write(`node -e "process.exit(4)" -- --password ${CANARY}\n`);
    shell.stdin.write("\n");
    shell.stdin.write(`printf '%s\\n' "release notes" > notes.txt\n`);
    const events = await waitFor(
      async () => (await api("GET", `/api/learn/sessions/${id}/observations`)).events as Array<Record<string, any>>,
      (seen) => seen.length >= 2,
      "both commands at the agent",
    );
    // Reported in the background: order by what was run, not by arrival.
    const byLabel = new Map(events.map((event) => [event.action_label as string, event]));
    const failing = byLabel.get(`Run 'node -e process.exit(4) -- --password ${MASKED_ARGUMENT}'`);
    expect(failing?.desktop_detail).toMatchObject({ program: "node", exit_code: 4 });
    expect(byLabel.get("Run 'printf %s\\n release notes > notes.txt'")?.desktop_detail).toMatchObject({ program: "printf", exit_code: 0 });
    expect(events.every((event) => event.adapter_kind === "terminal_command")).toBe(true);
    // The empty line is not a command, and nothing was sent before the session existed.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const all = (await api("GET", `/api/learn/sessions/${id}/observations`)).events as Array<Record<string, any>>;
    expect(all).toHaveLength(2);
    expect((await api("GET", `/api/learn/sessions/${id}/detail`)).state).toBe("capturing");
    for (const file of await filesUnder(root)) expect(await readFile(file, "utf8"), file).not.toContain(CANARY);
  }, 60_000);

  it("reports where each command ran (cd reports the folder it left), a multi-line command as one, a line that starts a subshell, a here-document without its body, and not a line kept out of history with a leading space", async () => {
    const id = ((await api("GET", "/api/learn/runtime/current")) as { learn_session_id: string }).learn_session_id;
    const before = ((await api("GET", `/api/learn/sessions/${id}/observations`)).events as unknown[]).length;
    shell.stdin.write("mkdir -p releases/2026-11\n");
    shell.stdin.write("cd releases\n");
    shell.stdin.write('for name in a b; do\n  touch "$name.txt"\ndone\n');
    shell.stdin.write(`  echo hidden ${CANARY}\n`);
    shell.stdin.write("(cd 2026-11 && touch notes.md)\n");
    shell.stdin.write(`cat <<'EOF' > note.txt\nthe password is ${CANARY}\nEOF\n`);
    const events = await waitFor(
      async () => ((await api("GET", `/api/learn/sessions/${id}/observations`)).events as Array<Record<string, any>>).slice(before),
      (seen) => seen.length >= 5,
      "the five commands at the agent",
    );
    const byProgram = new Map(events.map((event) => [event.desktop_detail.program as string, event.desktop_detail as { args: string[]; cwd_name: string }]));
    const homeName = path.basename(home);
    expect(byProgram.get("mkdir")).toMatchObject({ args: ["-p", "releases/2026-11"], cwd_name: homeName });
    expect(byProgram.get("cd")).toMatchObject({ args: ["releases"], cwd_name: homeName });
    expect(byProgram.get("for")?.args.join(" ")).toMatch(/^name in a b; do touch \$name\.txt;? ?done$/);
    expect(byProgram.get("for")?.cwd_name).toBe("releases");
    expect(byProgram.get("(cd")).toMatchObject({ args: ["2026-11", "&&", "touch", "notes.md)"], cwd_name: "releases" });
    expect(byProgram.get("cat")).toMatchObject({ args: ["<<EOF", ">", "note.txt"], exit_code: 0 });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const all = ((await api("GET", `/api/learn/sessions/${id}/observations`)).events as unknown[]).slice(before);
    expect(all).toHaveLength(5);
    expect(JSON.stringify(all)).not.toContain("hidden");
    for (const file of await filesUnder(root)) expect(await readFile(file, "utf8"), file).not.toContain(CANARY);
  }, 60_000);
});

import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProposalDetailResponseSchema } from "../../../shared/learning/route-contracts";
import { MASKED_ARGUMENT } from "../../../shared/observation/command-masking";
import { shellCommandEvent } from "../../reference-adapter/shell-command";
import { startTestAgent, type TestAgent } from "../../test-support/test-agent";

/**
 * A recorded terminal routine (as the shell integration reports it, masked at the source) compiled
 * through the real routes into a proposal: commands become checkpoints with their exit codes,
 * inputs become parameters, a wrapper receipt becomes a step of its own, and the canary typed
 * after `--password` is nowhere.
 */
const CANARY = "Zq9-desktop-canary-pw";
let agent: TestAgent;

beforeEach(async () => {
  agent = await startTestAgent();
});
afterEach(async () => {
  await agent.close();
});

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

async function recordRoutine(): Promise<string> {
  await agent.call("POST", "/api/observation/adapters/heartbeat", { adapter_id: "shell", kind: "terminal_command", schema_version: 1 });
  const created = await agent.call("POST", "/api/learn/sessions", {
    entry_mode: "demonstrating_skill",
    observation_mode: "outside_agent",
    target_app_family: "desktop",
  });
  const id = created.body.session.learn_session_id as string;
  expect((await agent.call("POST", `/api/learn/sessions/${id}/start`)).status).toBe(200);
  await agent.call("POST", `/api/learn/sessions/${id}/mark-goal`, { goal_description: "Ship a database release to staging" });
  const at = (offset: number) => new Date(Date.now() + offset);
  const command = (line: string, exitCode: number, offset: number) =>
    shellCommandEvent(
      { line, exitCode, durationMs: 120, cwd: "/home/zq9user/work/shop", startedAt: at(offset) },
      { sessionId: id, eventId: randomUUID(), now: at(offset), shell: "bash" },
    );
  const events = [
    command("git checkout -b release/2026-11", 0, 10),
    command(`psql --host db.staging.example.com --password ${CANARY} -f migrations/orders.sql`, 0, 20),
    command("scp build.tar.gz deploy@staging.example.com:/srv/shop", 0, 30),
    {
      event_id: randomUUID(),
      learn_session_id: id,
      adapter_kind: "wrapper_receipt",
      app_family: "release-wrapper",
      action_label: "Publish the release notes",
      control_surface: "wrapper_script",
      redaction_mode: "mask_text",
      created_at: at(40).toISOString(),
      schema_version: 1,
    },
    {
      event_id: randomUUID(),
      learn_session_id: id,
      adapter_kind: "mcp_receipt",
      app_family: "tracker-mcp",
      action_label: "Open the release ticket",
      control_surface: "mcp_server",
      redaction_mode: "mask_text",
      created_at: at(50).toISOString(),
      schema_version: 1,
    },
  ];
  const ack = await agent.call("POST", "/api/observations/events", { batch_id: randomUUID(), events, snapshots: [], schema_version: 1 });
  expect(ack.body.accepted, JSON.stringify(ack.body)).toHaveLength(5);
  await agent.call("POST", `/api/learn/sessions/${id}/stop`);
  return id;
}

describe("desktop traces compile into skills", () => {
  it("turns commands into checkpoints with exit codes, their inputs into parameters, a wrapper receipt into a step, keeps the masked password masked, and validation leaves each command to the person instead of running it", async () => {
    const id = await recordRoutine();
    const generated = await agent.call("POST", `/api/learn/sessions/${id}/generate-proposal`);
    expect(generated.status, JSON.stringify(generated.body)).toBe(200);
    // Every checkpoint is observable (exit codes, a receipt): no "how can you tell it worked?" question.
    expect(generated.body.session.state).toBe("ready_for_review");
    const detail = ProposalDetailResponseSchema.parse((await agent.call("GET", `/api/learn/proposals/${generated.body.proposal_id as string}/detail`)).body);
    const markdown = (await agent.memory.readText(detail.proposal.draft_skill_path)) ?? "";

    expect(markdown).toContain("git checkout -b {{branch}}");
    expect(markdown).toContain("psql --host {{host}} --password {{password}} -f {{path}}");
    expect(markdown).toContain("scp {{path_2}} {{path_3}}");
    expect(markdown).toContain("ran and exited with code 0");
    expect(markdown).toContain("The Publish the release notes receipt is recorded");
    expect(markdown).toContain("The Open the release ticket receipt is recorded");
    expect(markdown).toMatch(/`\{\{password\}\}` — password \(secret\)/);
    expect(markdown).not.toContain("page.");
    expect(detail.interpretation?.success_conditions).toHaveLength(5);
    // Each is left to the person, and says why in terms of a terminal, not of a page.
    const reasons = (detail.interpretation?.checkpoints ?? []).map((checkpoint) => checkpoint.verification);
    expect(reasons.slice(0, 3).every((reason) => reason?.by === "person" && reason.reason?.startsWith("A command on this computer"))).toBe(true);
    expect(reasons.slice(3).every((reason) => reason?.by === "person" && reason.reason?.startsWith("A receipt from a program"))).toBe(true);
    expect(JSON.stringify(reasons)).not.toContain("page");
    expect(detail.checkpoint_lint_report).toMatchObject({ passed: true });

    // The canary never left the terminal: not in the events, the proposal, SKILL.md or any log.
    for (const file of await filesUnder(agent.root)) expect(await readFile(file, "utf8"), file).not.toContain(CANARY);
    expect(markdown).not.toContain(MASKED_ARGUMENT);
    expect(markdown).not.toContain("zq9user");

    // Validation says honestly what it could not rehearse: no command is run, each command checkpoint is left to the person.
    const validated = await agent.call("POST", `/api/learn/proposals/${generated.body.proposal_id as string}/validate`, {
      selected_tests: [],
      schema_version: 1,
    });
    expect(validated.body.validation_run.overall_result).toBe("partial");
    const runs = await agent.call("GET", `/api/learn/proposals/${generated.body.proposal_id as string}/validation-runs`);
    const checkpointSteps = (runs.body.steps as Array<{ test_case_id: string; result: string; details?: string }>).filter((step) =>
      step.test_case_id.startsWith("checkpoint:"),
    );
    expect(checkpointSteps).toHaveLength(5);
    for (const step of checkpointSteps) {
      expect(step.result).toBe("skipped");
      expect(step.details).toContain("confirm by hand");
    }
    for (const file of await filesUnder(agent.root)) expect(await readFile(file, "utf8"), file).not.toContain(CANARY);
  });
});

describe("the files a terminal routine leaves behind", () => {
  it("checks that the file each command writes exists (a redirect, -o, tar, touch, mkdir, cp), with the folder of cd as an input", async () => {
    await agent.call("POST", "/api/observation/adapters/heartbeat", { adapter_id: "shell", kind: "terminal_command", schema_version: 1 });
    const created = await agent.call("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_family: "desktop",
    });
    const id = created.body.session.learn_session_id as string;
    await agent.call("POST", `/api/learn/sessions/${id}/start`);
    await agent.call("POST", `/api/learn/sessions/${id}/mark-goal`, { goal_description: "Package the monthly report" });
    const lines = [
      "cd reports",
      "mkdir -p out/2026-11",
      "curl -s https://reports.example.com/monthly -o out/2026-11/monthly.json",
      `printf '%s\\n' done >out/2026-11/status.txt 2>/dev/null`,
      "tar -czf monthly-2026-11.tar.gz out",
      "cp monthly-2026-11.tar.gz /srv/archive/",
      `curl -s -u deploy:${CANARY} https://archive.example.com/notify`,
      `mysql -uroot -p${CANARY} reports`,
    ];
    const events = lines.map((line, index) =>
      shellCommandEvent(
        { line, exitCode: 0, durationMs: 10, cwd: "/home/ann/work", startedAt: new Date(Date.now() + (index + 1) * 10) },
        { sessionId: id, eventId: randomUUID(), now: new Date(), shell: "bash" },
      ),
    );
    const ack = await agent.call("POST", "/api/observations/events", { batch_id: randomUUID(), events, snapshots: [], schema_version: 1 });
    expect(ack.body.accepted, JSON.stringify(ack.body)).toHaveLength(lines.length);
    await agent.call("POST", `/api/learn/sessions/${id}/stop`);
    const generated = await agent.call("POST", `/api/learn/sessions/${id}/generate-proposal`);
    expect(generated.status, JSON.stringify(generated.body)).toBe(200);
    const detail = ProposalDetailResponseSchema.parse((await agent.call("GET", `/api/learn/proposals/${generated.body.proposal_id as string}/detail`)).body);
    const conditions = detail.interpretation?.success_conditions ?? [];
    const all = conditions.join("\n");
    expect(all).toContain("`cd {{folder}}` ran and exited with code 0");
    expect(all).toMatch(/`mkdir -p \{\{path\}\}` ran and exited with code 0, and `\{\{path\}\}` exists/);
    expect(all).toMatch(/-o \{\{(path_\d)\}\}` ran and exited with code 0, and `\{\{\1\}\}` exists/);
    // The redirect's operator stays in the command; only the file is the input.
    expect(all).toMatch(/>\{\{(path_\d)\}\} 2>\/dev\/null` ran and exited with code 0, and `\{\{\1\}\}` exists/);
    expect(all).toMatch(/`tar -czf \{\{(path_\d)\}\} out` ran and exited with code 0, and `\{\{\1\}\}` exists/);
    expect(all).toMatch(/`cp \{\{path_\d\}\} \{\{(path_\d)\}\}` ran and exited with code 0, and `\{\{\1\}\}` exists/);
    // A password stays a secret input; the user typed with it and the command's shape stay as they were.
    expect(all).toMatch(/`curl -s -u deploy:\{\{password\}\} \{\{url_2\}\}` ran/);
    expect(all).toMatch(/`mysql -uroot -p\{\{password_2\}\} reports` ran/);
    expect(all).not.toContain(MASKED_ARGUMENT);
    expect(detail.checkpoint_lint_report).toMatchObject({ passed: true });
    for (const file of await filesUnder(agent.root)) expect(await readFile(file, "utf8"), file).not.toContain(CANARY);
  });
});

describe("a terminal's slips", () => {
  it("leaves out a mistyped program and a failed command run again at once, and keeps a failure that was not retried", async () => {
    await agent.call("POST", "/api/observation/adapters/heartbeat", { adapter_id: "shell", kind: "terminal_command", schema_version: 1 });
    const created = await agent.call("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_family: "desktop",
    });
    const id = created.body.session.learn_session_id as string;
    await agent.call("POST", `/api/learn/sessions/${id}/start`);
    await agent.call("POST", `/api/learn/sessions/${id}/mark-goal`, { goal_description: "Check the build" });
    const lines: Array<[string, number]> = [
      ["gti status", 127],
      ["git status", 0],
      ["make tset", 2],
      ["make test", 0],
      ["grep -q TODO notes.md", 1],
      ['git commit -am "Release notes for November"', 0],
      ['gh pr create --title "Release 2026-11" --body "Ships the orders migration"', 0],
    ];
    const events = lines.map(([line, exitCode], index) =>
      shellCommandEvent(
        { line, exitCode, durationMs: 10, cwd: "/home/ann/work", startedAt: new Date(Date.now() + (index + 1) * 10) },
        { sessionId: id, eventId: randomUUID(), now: new Date(), shell: "zsh" },
      ),
    );
    await agent.call("POST", "/api/observations/events", { batch_id: randomUUID(), events, snapshots: [], schema_version: 1 });
    await agent.call("POST", `/api/learn/sessions/${id}/stop`);
    const generated = await agent.call("POST", `/api/learn/sessions/${id}/generate-proposal`);
    expect(generated.status, JSON.stringify(generated.body)).toBe(200);
    const detail = ProposalDetailResponseSchema.parse((await agent.call("GET", `/api/learn/proposals/${generated.body.proposal_id as string}/detail`)).body);
    const conditions = detail.interpretation?.success_conditions ?? [];
    expect(conditions.join("\n")).not.toMatch(/gti|tset/);
    expect(conditions).toEqual([
      "`git status` ran and exited with code 0",
      "`make test` ran and exited with code 0",
      "`grep -q TODO {{path}}` ran and exited with code 1",
      // Text written for this one time (a commit message, a title) is an input, not part of the routine.
      "`git commit -am {{message}}` ran and exited with code 0",
      "`gh pr create --title {{title}} --body {{body}}` ran and exited with code 0",
    ]);
  });
});

describe("a command the person interrupted", () => {
  it("is left out like a slip (Ctrl-C, exit 130; Ctrl-\\, 131), retried or not, and never becomes a checkpoint or a step", async () => {
    await agent.call("POST", "/api/observation/adapters/heartbeat", { adapter_id: "shell", kind: "terminal_command", schema_version: 1 });
    const created = await agent.call("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_family: "desktop",
    });
    const id = created.body.session.learn_session_id as string;
    await agent.call("POST", `/api/learn/sessions/${id}/start`);
    await agent.call("POST", `/api/learn/sessions/${id}/mark-goal`, { goal_description: "Publish the site" });
    const lines: Array<[string, number]> = [
      ["npm run build", 0],
      // Watched, then stopped: the person looking, not a step of the routine.
      ["tail -f logs/build.log", 130],
      // Started by mistake and stopped at once, then something else.
      ["npm run deploy:staging", 130],
      ["rsync -a dist/ /srv/www/", 0],
      ["python3 -m http.server", 131],
      ["curl -s http://localhost/health", 0],
    ];
    const events = lines.map(([line, exitCode], index) =>
      shellCommandEvent(
        { line, exitCode, durationMs: 10, cwd: "/home/ann/site", startedAt: new Date(Date.now() + (index + 1) * 10) },
        { sessionId: id, eventId: randomUUID(), now: new Date(), shell: "bash" },
      ),
    );
    await agent.call("POST", "/api/observations/events", { batch_id: randomUUID(), events, snapshots: [], schema_version: 1 });
    await agent.call("POST", `/api/learn/sessions/${id}/stop`);
    const generated = await agent.call("POST", `/api/learn/sessions/${id}/generate-proposal`);
    expect(generated.status, JSON.stringify(generated.body)).toBe(200);
    const proposalId = generated.body.proposal_id as string;
    const detail = ProposalDetailResponseSchema.parse((await agent.call("GET", `/api/learn/proposals/${proposalId}/detail`)).body);
    const conditions = detail.interpretation?.success_conditions ?? [];
    expect(conditions.join("\n")).not.toMatch(/13[01]|tail|deploy:staging|http\.server/);
    expect(conditions).toHaveLength(3);
    expect(conditions[0]).toBe("`npm run build` ran and exited with code 0");
    expect(conditions[1]).toMatch(/^`rsync -a \S+ \S+` ran and exited with code 0/);
    expect(conditions[2]).toMatch(/^`curl -s \S+` ran and exited with code 0/);
    const markdown = (await agent.call("GET", `/api/learn/proposals/${proposalId}/skill-md`)).body.markdown as string;
    expect(markdown).not.toMatch(/tail -f|deploy:staging|http\.server/);
  });
});

describe("the agent's own check of a command line", () => {
  it("refuses a terminal command from any adapter whose arguments still carry a secret, and stores the masked one", async () => {
    await agent.call("POST", "/api/observation/adapters/heartbeat", { adapter_id: "third-party", kind: "terminal_command", schema_version: 1 });
    const created = await agent.call("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_family: "desktop",
    });
    const id = created.body.session.learn_session_id as string;
    await agent.call("POST", `/api/learn/sessions/${id}/start`);
    const secret = "Zq9-pw";
    const command = (program: string, args: string[]) => ({
      event_id: randomUUID(),
      learn_session_id: id,
      adapter_kind: "terminal_command",
      app_family: "shell",
      action_label: "Run a command",
      redaction_mode: "mask_text",
      created_at: new Date().toISOString(),
      schema_version: 1,
      desktop_detail: { program, args, exit_code: 0 },
    });
    const leaks = [
      command("mysql", ["-uroot", `-p${secret}`, "shop"]),
      command("curl", ["-u", `deploy:${secret}`, "https://x.example"]),
      command(`PGPASSWORD=${secret}`, ["psql"]),
    ];
    const masked = command("mysql", ["-uroot", `-p${MASKED_ARGUMENT}`, "shop"]);
    const ack = await agent.call("POST", "/api/observations/events", { batch_id: randomUUID(), events: [...leaks, masked], snapshots: [], schema_version: 1 });
    expect(ack.body.rejected.map((entry: { code: string }) => entry.code)).toEqual([
      "OBSERVATION_NOT_MASKED",
      "OBSERVATION_NOT_MASKED",
      "OBSERVATION_NOT_MASKED",
    ]);
    expect(ack.body.accepted).toEqual([masked.event_id]);
    for (const file of await filesUnder(agent.root)) expect(await readFile(file, "utf8"), file).not.toContain(secret);
  });
});

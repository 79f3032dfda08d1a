import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { shellCommandEvent } from "../../../agent/reference-adapter/shell-command";
import { SessionTimelineState } from "./session-timeline.svelte";
import { timelineStep } from "./timeline";
import { startListeningAgent, type ListeningAgent } from "../../test-support/listening-agent";

let agent: ListeningAgent;

beforeEach(async () => {
  agent = await startListeningAgent();
});
afterEach(async () => {
  await agent.close();
});

describe("the live timeline of a session that watches this computer", () => {
  it("lists terminal commands in the order they ran, though the terminal reported them in another order", async () => {
    await agent.call("POST", "/api/observation/adapters/heartbeat", { adapter_id: "shell", kind: "terminal_command", schema_version: 1 });
    const created = await agent.call("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_family: "desktop",
    });
    const id = created.body.session.learn_session_id as string;
    expect((await agent.call("POST", `/api/learn/sessions/${id}/start`)).status).toBe(200);
    const base = Date.now() + 1000;
    const at = (offset: number) => new Date(base + offset);
    const command = (line: string, offset: number) =>
      shellCommandEvent(
        { line, exitCode: 0, durationMs: 10, cwd: "/srv/shop", startedAt: at(offset) },
        { sessionId: id, eventId: randomUUID(), now: at(offset), shell: "bash" },
      );
    const send = async (events: unknown[]) => {
      const ack = await agent.call("POST", "/api/observations/events", { batch_id: randomUUID(), events, schema_version: 1, snapshots: [] });
      expect(ack.body.accepted, JSON.stringify(ack.body)).toHaveLength(events.length);
    };
    // `tar` was typed first but took longer: its report comes after `git`'s.
    await send([command("git status", 200)]);
    await send([command("tar -czf site.tar.gz site", 100)]);
    const timeline = new SessionTimelineState(agent.deps(), id);
    await timeline.refresh();
    await send([command("ls", 300), command("cd shop", 50)]);
    await timeline.refresh();
    expect(timeline.steps.map((step) => step.label)).toEqual(["Run 'cd shop'", "Run 'tar -czf site.tar.gz site'", "Run 'git status'", "Run 'ls'"]);
  });
});

describe("a terminal command in the timeline", () => {
  it("says how it ended, a failed command as failed with its exit code", () => {
    const context = { sessionId: "6f1c2c1e-7d3a-4b8e-9a51-2f0d3c4b5a69", eventId: randomUUID(), now: new Date(), shell: "zsh" };
    const failed = shellCommandEvent({ line: "ls missing.txt", exitCode: 2, durationMs: 3, cwd: "/srv/shop" }, context)!;
    const worked = shellCommandEvent({ line: "ls", exitCode: 0, durationMs: 3, cwd: "/srv/shop" }, context)!;
    expect(timelineStep(failed, new Set())).toMatchObject({
      kind: "Command",
      label: "Run 'ls missing.txt'",
      outcome: "failed: exited with code 2",
      failed: true,
      where: "Terminal (zsh) — shop · ls",
    });
    expect(timelineStep(worked, new Set())).toMatchObject({ outcome: "exited with code 0", failed: false });
  });
});

import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentProcess } from "../../agent/test-support/agent-process";
import { startNotesAgent, type NotesAgent } from "../../agent/test-support/notes-agent";
import type { AgentCall } from "../../agent/test-support/ready-proposal";
import { FIXTURE_USER, type SignInFixture } from "../../agent/test-support/sign-in-fixture";
import { launchMcp, resultText, type LaunchedMcp } from "../../mcp/test-support/launch-mcp";
import { memoryText } from "../../agent/test-support/memory-text";

/**
 * Issue #35 "run it later … over MCP": a skill learned on a multi-page app behind a sign-in (the
 * notes fixture: session cookie, CSRF token, a form that posts and redirects) run by an assistant
 * through the MCP server with new inputs, in the agent's managed Chromium. The assistant gives the
 * password at run time; the person confirms "Save note"; the new note is read from the app's own
 * state, and the password is in no file, log or answer.
 */
const PASSWORD = `pw-${crypto.randomUUID().slice(0, 12)}`;

let notes: NotesAgent;
let root: string;
let site: SignInFixture;
let agent: AgentProcess;
let mcp: LaunchedMcp;
let call: AgentCall;
let abilityId: string;

beforeAll(async () => {
  notes = await startNotesAgent("elnor-mcp-sign-in-", PASSWORD, (memory) => ({ OPENCLAW_WORKSPACE: path.join(memory, "openclaw-workspace") }));
  ({ root, site, agent, call, abilityId } = notes);
  mcp = await launchMcp({ memoryRoot: root, agentUrl: agent.url });
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await notes?.close();
});

interface RunView {
  dispatch_id: string;
  state: string;
  checkpoints_proved: string;
  checkpoints: Array<{ checkpoint_id: string; status: string }>;
}

describe("a skill learned behind a sign-in, run over MCP with new inputs (issue #35)", { timeout: 120_000 }, () => {
  it("signs in with the password given at run time, writes the new note after the person confirms, and proves every checkpoint", async () => {
    const described = await mcp.client.callTool({ name: "describe_ability", arguments: { ability_id: abilityId } });
    expect(described.structuredContent).toMatchObject({
      inputs: [
        { name: "username", secret: false },
        { name: "password", secret: true },
        { name: "title", secret: false },
      ],
      sites: [site.host],
    });

    const title = `Minutes of ${new Date().toISOString().slice(0, 10)}`;
    let view = (
      await mcp.client.callTool(
        { name: "run_ability", arguments: { ability_id: abilityId, inputs: { username: FIXTURE_USER, password: PASSWORD, title } } },
        undefined,
        { timeout: 90_000 },
      )
    ).structuredContent as unknown as RunView;
    // Each committing step waits for the person (the HTTP route the side panel calls stands in for them).
    for (let turns = 0; view.state === "needs_confirmation" && turns < 5; turns += 1) {
      const pending = (await call("GET", `/api/runs/${view.dispatch_id}`)).body.run.pending_confirmation as { confirmation_id: string };
      expect(
        (await call("POST", `/api/runs/${view.dispatch_id}/confirm`, { confirmation_id: pending.confirmation_id, decision: "confirm", schema_version: 1 }))
          .status,
      ).toBe(200);
      const next = await mcp.client.callTool({ name: "get_run", arguments: { dispatch_id: view.dispatch_id, wait_seconds: 40 } }, undefined, {
        timeout: 60_000,
      });
      expect(next.isError, resultText(next)).toBeFalsy();
      view = next.structuredContent as unknown as RunView;
    }
    expect(view.state, JSON.stringify(view)).toBe("succeeded");
    expect(view.checkpoints.length).toBeGreaterThan(1);
    expect(
      view.checkpoints.every((checkpoint) => checkpoint.status === "reached"),
      JSON.stringify(view.checkpoints),
    ).toBe(true);
    // The app's own state: signed in once, the new note saved under the account.
    expect(site.signIns()).toBe(1);
    expect(site.notes()).toEqual([{ owner: FIXTURE_USER, title }]);
    expect(await memoryText(root)).not.toContain(PASSWORD);
    expect(agent.output()).not.toContain(PASSWORD);
    expect(mcp.stderr()).not.toContain(PASSWORD);
  });
});

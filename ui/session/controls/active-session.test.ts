import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ActiveSessionState } from "./active-session.svelte";
import type { AgentClient } from "../../agent-link/agent-client";
import type { PanelBrowser } from "../../../shared/observation/panel-browser";
import { eventually, startListeningAgent, type ListeningAgent } from "../../test-support/listening-agent";

let agent: ListeningAgent;
let active: ActiveSessionState | undefined;

beforeEach(async () => {
  agent = await startListeningAgent();
});
afterEach(async () => {
  active?.destroy();
  active = undefined;
  await agent.close();
});

/** A browser that grants site access and records the order of what the panel asked. */
function recordingBrowser(calls: string[], granted = true): PanelBrowser {
  return {
    currentTabUrl: async () => "https://shop.example.com/checkout?token=abc",
    requestSiteAccess: (sites) => {
      calls.push(`requestSiteAccess:${sites.join(",")}`);
      return Promise.resolve(granted);
    },
    ensureConnected: async () => {
      calls.push("ensureConnected");
      return "connected";
    },
    captureStatus: async () => null,
  };
}

describe("ActiveSessionState against a real agent", () => {
  it("asks for site access synchronously in the Start click, then shows the agent's ADAPTER_UNAVAILABLE message", async () => {
    const calls: string[] = [];
    const deps = agent.deps(recordingBrowser(calls));
    const created = await agent.client.createSession({
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_whitelist: ["shop.example.com"],
      target_app_family: "browser",
    });
    active = new ActiveSessionState(deps);
    active.adopt(created.session);
    const started = active.start();
    // Before any await: Chrome only prompts during the click's user gesture.
    expect(calls).toEqual(["requestSiteAccess:shop.example.com"]);
    await started;
    expect(calls).toEqual(["requestSiteAccess:shop.example.com", "ensureConnected"]);
    // No extension is connected to this agent: Start is refused with 503 and its reason is shown.
    expect(active.error).toContain("No browser extension is connected");
    expect(active.error).toContain("turn off Watch My Actions");
    expect(active.session?.state).toBe("idle");
  });

  it("does not start when Chrome refuses the sites, and says why", async () => {
    const calls: string[] = [];
    const created = await agent.client.createSession({
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_whitelist: ["shop.example.com"],
    });
    active = new ActiveSessionState(agent.deps(recordingBrowser(calls, false)));
    active.adopt(created.session);
    await active.start();
    expect(active.notice).toMatch(/did not grant access/);
    expect(calls).toEqual(["requestSiteAccess:shop.example.com"]);
    expect((await agent.client.sessionDetail(created.session.learn_session_id)).state).toBe("idle");
  });

  it("runs a session without watching: start, mark goal (capture begins), pause, resume, stop, cancel", async () => {
    const created = await agent.client.createSession({ entry_mode: "demonstrating_skill", observation_mode: "none" });
    active = new ActiveSessionState(agent.deps(recordingBrowser([])));
    active.adopt(created.session);
    await active.start();
    expect(active.session?.state).toBe("armed");
    await active.markGoal("Send the weekly report");
    await eventually(() => active?.session?.state === "capturing", "capturing after the goal mark");
    await active.pause();
    expect(active.session?.state).toBe("paused");
    await active.resume();
    await active.stop();
    expect(active.session?.state).toBe("stopped");
    expect(active.capturedCount).toBe(0);
    // Nothing was observed: the agent refuses a proposal, and the panel says so.
    await active.generateProposal();
    expect(active.error).toMatch(/Nothing was observed/);
    await active.cancel("test over");
    expect(active.session?.state).toBe("cancelled");
    await eventually(() => active?.live?.status === "ended" || active?.live?.status === "stopped", "the live link to end");
  });

  it("keeps the newer state when an older read of the session is answered late (a list read before Start, answered after it)", async () => {
    const created = await agent.client.createSession({ entry_mode: "demonstrating_skill", observation_mode: "none" });
    let read = false;
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    // The agent's real answer, read now and handed over later (a loaded machine does this).
    const client: AgentClient = {
      ...agent.client,
      listSessions: async (...args) => {
        const page = await agent.client.listSessions(...args);
        read = true;
        await answered;
        return page;
      },
    };
    active = new ActiveSessionState({ ...agent.deps(recordingBrowser([])), client });
    active.adopt(created.session);
    const listing = active.loadCurrent();
    await eventually(() => read, "the list read");
    await active.start();
    expect(active.session?.state).toBe("armed");
    answer();
    await listing;
    expect(active.session?.state).toBe("armed");
  });

  it("finds the session in flight when the panel opens", async () => {
    const created = await agent.client.createSession({ entry_mode: "improving_existing_skill", observation_mode: "none", target_skill_id: "weekly-report" });
    active = new ActiveSessionState(agent.deps());
    await active.loadCurrent();
    expect(active.session?.learn_session_id).toBe(created.session.learn_session_id);
    await eventually(() => active?.live?.status === "live", "the live link");
    await eventually(() => active?.scope !== null, "the observation scope");
    expect(active.scope?.redaction_modes.text_entry).toBe("mask_text");
  });
});

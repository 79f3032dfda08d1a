import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../agent/test-support/run-fixture";
import type { RunRecord } from "../../shared/execution/run-contract";
import type { TabRunAccessReply } from "../../shared/observation/panel-messages";
import type { PanelBrowser } from "../../shared/observation/panel-browser";
import { noBrowser } from "../common/no-browser";
import { RunFormState } from "./run-form.svelte";
import { startListeningAgent, type ListeningAgent } from "../test-support/listening-agent";

/**
 * "In my browser" from the run form (issue #21): the extension's answers are scripted here (its
 * side of the consent is tested in e2e/runs/in-tab-run and e2e/runs/run-ui), the agent is real.
 */
let site: RunFixtureSite;
let agent: ListeningAgent;
let abilityId: string;

beforeAll(async () => {
  site = await serveRunFixtureSite();
});
afterAll(async () => {
  await site.close();
});
beforeEach(async () => {
  agent = await startListeningAgent();
  ({ abilityId } = await installContactAbility(agent.call, site));
});
afterEach(async () => {
  await agent.close();
});

const reply = (extra: Partial<TabRunAccessReply> = {}): TabRunAccessReply => ({
  ready: false,
  connection: "connected",
  in_tab_allowed: false,
  debugger_available: true,
  recording_active: false,
  run_active: false,
  ...extra,
});

/** An extension that keeps the person's consent as the background does, and says whether it can lend a tab. */
function tabBrowser(initial: Partial<TabRunAccessReply> = {}): PanelBrowser & { answers: boolean[] } {
  let state = reply(initial);
  const answers: boolean[] = [];
  const ready = () => state.connection === "connected" && state.in_tab_allowed && state.debugger_available && !state.recording_active && !state.run_active;
  return {
    ...noBrowser,
    answers,
    tabRunAccess: async () => ({ ...state, ready: ready() }),
    allowInTabRuns: async (allowed) => {
      answers.push(allowed);
      state = { ...state, in_tab_allowed: allowed };
      return { ...state, ready: ready() };
    },
  };
}

async function filledForm(browser: PanelBrowser) {
  const spec = await agent.client.runSpec(abilityId);
  const started: RunRecord[] = [];
  const form = new RunFormState(agent.deps(browser), spec, { onStarted: (run) => started.push(run) });
  for (const input of spec.inputs) form.setValue(input.name, input.secret ? "Form-Secret-1" : "Hello");
  form.where = "user_tab";
  return { form, started };
}

describe("Run in my browser: the person's consent first (issue #21)", () => {
  it("asks before the first in-tab run and starts nothing until the person answers", async () => {
    const browser = tabBrowser();
    const { form, started } = await filledForm(browser);
    await form.submit();
    expect(form.askingTabConsent).toBe(true);
    expect(started).toEqual([]);
    expect((await agent.client.listRuns(abilityId)).total).toBe(0);
  });

  it("Not now starts nothing and chooses a separate browser", async () => {
    const browser = tabBrowser();
    const { form, started } = await filledForm(browser);
    await form.submit();
    await form.allowTabRuns(false);
    expect(form.askingTabConsent).toBe(false);
    expect(form.where).toBe("managed");
    expect(browser.answers).toEqual([]);
    expect(started).toEqual([]);
  });

  it("Allow and run keeps the consent and asks the agent for a run in the person's tab", async () => {
    const browser = tabBrowser();
    const { form, started } = await filledForm(browser);
    await form.submit();
    await form.allowTabRuns(true);
    expect(browser.answers).toEqual([true]);
    // This agent has no extension connected to lend it a tab (the whole path runs in e2e/runs/run-ui):
    // it refuses the in-tab run, and the form says so in the agent's words, with nothing started.
    expect(form.error).toBe("No browser extension is connected to run in your tab; open Chrome with the extension paired, or run it in the managed browser.");
    expect(started).toEqual([]);
    // Asked once: the next in-tab run goes to the agent without the question.
    await form.submit();
    expect(form.askingTabConsent).toBe(false);
    expect(browser.answers).toEqual([true]);
    expect(form.tabAllowed).toBe(true);
    // Withdrawn, the next in-tab run asks again.
    await form.withdrawTabRuns();
    expect(browser.answers).toEqual([true, false]);
    expect(form.tabAllowed).toBe(false);
    expect(form.notice).toContain("will ask again");
    form.where = "user_tab";
    await form.submit();
    expect(form.askingTabConsent).toBe(true);
  });

  it("says why the extension cannot lend a tab now, and starts nothing", async () => {
    const { form, started } = await filledForm(tabBrowser({ in_tab_allowed: true, recording_active: true }));
    await form.submit();
    expect(form.error).toContain("A demonstration is being recorded");
    expect(started).toEqual([]);
    const { form: withoutDebugger } = await filledForm(tabBrowser({ debugger_available: false }));
    await withoutDebugger.submit();
    expect(withoutDebugger.askingTabConsent).toBe(false);
    expect(withoutDebugger.error).toContain("a policy withholds it");
  });
});

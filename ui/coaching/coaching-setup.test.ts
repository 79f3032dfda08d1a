import { render } from "svelte/server";
import { describe, expect, it } from "vitest";
import type { CoachingState } from "../../shared/learning/sessions/coaching";
import CoachingSetup from "./CoachingSetup.svelte";
import CoachingTurns from "../session/questions/CoachingTurns.svelte";
import LearnNewAbility from "../learn/LearnNewAbility.svelte";
import { ActiveSessionState } from "../session/controls/active-session.svelte";
import { createAgentClient } from "../agent-link/agent-client";
import { CoachingSetupState, coachingProblems, coachingRequest } from "./coaching-setup.svelte";
import { aboutTo, openTurn, stepProgress } from "../session/questions/coaching-turns.svelte";
import { findForbiddenLabels } from "../forbidden-labels";
import { LearnNavigation } from "../common/learn-navigation.svelte";
import { noBrowser } from "../common/no-browser";
import { SessionSetupState } from "../learn/session-setup.svelte";

const client = createAgentClient({ baseUrl: "http://127.0.0.1:9" });
const deps = (features: string[]) => ({ client, browser: noBrowser, features: { has: (feature: string) => features.includes(feature) }, onFailure: () => {} });
const noop = { onCreated: () => {}, onShowActive: () => {} };

describe("Coaching Agent set-up", () => {
  it("says what to fix: the start page, at least one step, a hint without its step", () => {
    expect(coachingProblems("", [{ words: "", hint: "" }])).toEqual([
      "Give the address of the page the task starts on (http or https).",
      "Say at least one step in your own words.",
    ]);
    expect(coachingProblems("ftp://x", [{ words: "open invoices", hint: "" }])).toHaveLength(1);
    expect(
      coachingProblems("https://app.example.com/", [
        { words: "open invoices", hint: "" },
        { words: "", hint: "top menu" },
      ]),
    ).toEqual(["A hint needs the step it belongs to."]);
    expect(coachingProblems("https://app.example.com/", [{ words: "open invoices", hint: "" }])).toEqual([]);
  });

  it("sends the filled steps in order, with hints only where given", () => {
    expect(
      coachingRequest(" https://app.example.com/#/ ", [
        { words: " open the invoices page ", hint: "" },
        { words: "", hint: "" },
        { words: "export as CSV", hint: " under More " },
      ]),
    ).toEqual({
      start_url: "https://app.example.com/#/",
      steps: [{ words: "open the invoices page" }, { words: "export as CSV", hint: "under More" }],
    });
  });

  it("never answers 'Allow and start' with nothing: without the extension it says why nothing started", async () => {
    const coaching = new CoachingSetupState(deps(["coaching"]), noop);
    coaching.askingTabConsent = true;
    await coaching.allowTabs(true);
    expect(coaching.askingTabConsent).toBe(false);
    expect(coaching.error).toBe("The extension did not answer: coaching needs it to let the assistant act in a tab. Reload it and try again.");
  });

  it("enables the Coaching Agent card only on an agent that offers coaching", () => {
    const without = deps([]);
    const off = render(LearnNewAbility, { props: { setup: new SessionSetupState(without, noop), nav: new LearnNavigation() } }).body;
    expect(off).toMatch(/data-card="Coaching Agent"[^>]*aria-disabled="true"|data-card="Coaching Agent"[\s\S]*?Not available yet: coaching/);
    const withCoaching = deps(["coaching"]);
    const on = render(LearnNewAbility, {
      props: { setup: new SessionSetupState(withCoaching, noop), nav: new LearnNavigation(), coaching: new CoachingSetupState(withCoaching, noop) },
    }).body;
    expect(on).not.toContain("Not available yet: coaching");
    expect(on.match(/Not available yet/g)?.length).toBe(2);
  });

  it("renders the form with a step, its hint and Start, in the product's words", async () => {
    const state = new CoachingSetupState(deps(["coaching"]), noop);
    await state.begin();
    const { body } = render(CoachingSetup, { props: { coaching: state, oncancel: () => {} } });
    expect(body).toContain("Page the task starts on");
    expect(body.match(/name="coaching-step"/g)?.length).toBe(3);
    expect(body.match(/name="coaching-hint"/g)?.length).toBe(3);
    expect(body).toContain("Start coaching");
    expect(findForbiddenLabels(body)).toEqual([]);
  });
});

const state = (turns: CoachingState["turns"], status: CoachingState["status"] = "turns"): CoachingState => ({
  learn_session_id: "11111111-1111-4111-8111-111111111111",
  status,
  message: "Taking turns.",
  start_url: "http://127.0.0.1:9/",
  steps: [{ words: "open the invoices page" }, { words: "filter by last month" }, { words: "export as CSV" }],
  turns,
  updated_at: "2026-01-05T09:00:00.000Z",
  schema_version: 1,
});

describe("Coaching Agent turns", () => {
  const target = { role: "button", name: "Last month", why: "'last', 'month' are in its name \"Last month\"", score: 0.9 };
  const turns: CoachingState["turns"] = [
    { turn: 1, step_index: 0, words: "open the invoices page", status: "done", answer: "do_it", outcome: 'Clicked link "Invoices".', alternatives: [] },
    { turn: 2, step_index: 1, words: "filter by last month", status: "awaiting_answer", target, alternatives: [] },
  ];

  it("says what the agent is about to do and where each step stands", () => {
    expect(aboutTo(target)).toBe("click 'Last month' (button)");
    expect(openTurn(state(turns))?.turn).toBe(2);
    expect(openTurn(state(turns, "finished"))).toBeUndefined();
    expect(stepProgress(state(turns)).map((step) => step.status)).toEqual(["done", "awaiting_answer", "waiting"]);
  });

  it("shows the turns as loading until the agent has answered", () => {
    const learn = deps(["coaching"]);
    const active = new ActiveSessionState(learn, { onProposalReady: () => {} });
    const { body } = render(CoachingTurns, { props: { deps: learn, sessionId: "11111111-1111-4111-8111-111111111111", active, recording: false } });
    // Before the first read, the turns are loading; the view with a state is checked in e2e/improve/coaching.
    expect(body).toContain("Taking turns");
    expect(body).toContain("Loading the steps");
  });
});

import { render } from "svelte/server";
import { describe, expect, it } from "vitest";
import type { AbilityRunSpec, RunRecord } from "../../shared/execution/run-contract";
import { createAgentClient } from "../agent-link/agent-client";
import type { LearnDeps } from "../common/learn-deps";
import type { PanelBrowser } from "../../shared/observation/panel-browser";
import { noBrowser } from "../common/no-browser";
import AbilityItem from "../skills/AbilityItem.svelte";
import RunConfirmation from "./RunConfirmation.svelte";
import RunForm from "./RunForm.svelte";
import RunProgress from "./RunProgress.svelte";
import { RunFormState } from "./run-form.svelte";
import type { Ability } from "../skills/skills-catalog.svelte";
import { RunProgressState } from "./run-progress.svelte";
import { fieldKind, readable, runCheckpointRows, runFormProblems, runInputValues, runOutcome } from "./run-view";

const spec: AbilityRunSpec = {
  ability_id: "learned.signup",
  title: "Create a customer account",
  description: "Signs a new customer up on the fixture shop.",
  runnable: true,
  inputs: [
    { name: "full_name", label: "Full name", type: "text", secret: false, required: true },
    { name: "email", label: "Email", type: "email", secret: false, required: true },
    { name: "password", label: "Password", type: "secret", secret: true, required: true },
    { name: "age", label: "Age", type: "number", secret: false, required: false },
    { name: "notes", label: "Notes", type: "long_text", secret: false, required: false },
  ],
  sites: ["127.0.0.1"],
  checkpoints: [
    { checkpoint_id: "ckp-1", goal: "The sign-up form is open", verified_by: "page" },
    { checkpoint_id: "ckp-2", goal: "The account exists", verified_by: "page" },
  ],
  confirmation_steps: ["Click 'Create account'"],
  schema_version: 1,
};

function record(extra: Partial<RunRecord> = {}): RunRecord {
  return {
    dispatch_id: "dispatch-1",
    ability_id: spec.ability_id,
    ability_title: spec.title,
    state: "running",
    where: "managed",
    caller: "side_panel",
    input_names: ["full_name", "email", "password"],
    steps: [],
    checkpoints: [],
    started_at: "2026-01-01T10:00:00.000Z",
    updated_at: "2026-01-01T10:00:01.000Z",
    schema_version: 1,
    ...extra,
  };
}

// Rendering only: no request is made (the client points at a port nothing listens on).
const deps = (browser: PanelBrowser = noBrowser): LearnDeps => ({
  client: createAgentClient({ baseUrl: "http://127.0.0.1:9" }),
  browser,
  features: { has: () => true },
  onFailure: () => undefined,
});

describe("run rules (issue #21)", () => {
  it("asks for a secret in a password field whatever its declared type, and maps the others", () => {
    expect(spec.inputs.map(fieldKind)).toEqual(["text", "email", "password", "number", "textarea"]);
    expect(fieldKind({ name: "pin", label: "PIN", type: "number", secret: true, required: true })).toBe("password");
  });

  it("names every required input left empty, and a number or email that is not one", () => {
    expect(runFormProblems(spec, {})).toEqual(["Fill in Full name.", "Fill in Email.", "Fill in Password."]);
    expect(runFormProblems(spec, { full_name: "A", email: "no-at-sign", password: "x", age: "twelve" })).toEqual([
      "Email must be an email address.",
      "Age must be a number.",
    ]);
    expect(runFormProblems(spec, { full_name: "A", email: "a@b.example", password: "x" })).toEqual([]);
  });

  it("sends only the inputs that were filled in", () => {
    expect(runInputValues(spec, { full_name: "A", email: "a@b.example", password: "x", age: "  " })).toEqual({
      full_name: "A",
      email: "a@b.example",
      password: "x",
    });
  });

  it("lists every checkpoint of the ability, not yet reached until the run proves it, and one the run adds after them", () => {
    const rows = runCheckpointRows(
      spec,
      record({
        checkpoints: [
          { checkpoint_id: "ckp-2", goal: "The account exists", status: "reached", evidence: "Heading 'Welcome'" },
          { checkpoint_id: "ckp-9", goal: "Extra", status: "failed" },
        ],
      }),
    );
    expect(rows.map((row) => `${row.checkpoint_id}:${row.status}`)).toEqual(["ckp-1:not_reached", "ckp-2:reached", "ckp-9:failed"]);
    expect(rows[1]?.evidence).toBe("Heading 'Welcome'");
  });

  it("names a skill's {{parameters}} by their input labels, and leaves unknown ones as they are", () => {
    expect(readable("Fill #code with {{password}} then {{ email }} and {{other}}", spec.inputs)).toBe("Fill #code with “Password” then “Email” and {{other}}");
    const rows = runCheckpointRows(
      spec,
      record({ checkpoints: [{ checkpoint_id: "ckp-2", goal: "x", status: "failed", evidence: "expected {{email}} on the page" }] }),
    );
    expect(rows[1]).toMatchObject({ status: "failed", reason: "expected “Email” on the page" });
    expect(rows[1]?.evidence).toBeUndefined();
  });

  it("says a run succeeded with every checkpoint proved only when each one was", () => {
    const proved = record({
      state: "succeeded",
      checkpoints: spec.checkpoints.map((c) => ({ checkpoint_id: c.checkpoint_id, goal: c.goal, status: "reached" as const })),
    });
    expect(runOutcome(proved, runCheckpointRows(spec, proved))).toBe("Done: every checkpoint proved (2 of 2 checkpoints proved).");
    const failed = record({ state: "failed", failure: { code: "CHECKPOINT_NOT_CONFIRMED", message: "The account page did not appear" } });
    expect(runOutcome(failed, runCheckpointRows(spec, failed))).toBe("It stopped (0 of 2 checkpoints proved): The account page did not appear");
  });
});

describe("run views (issue #21)", () => {
  it("shows each input with its label, a password field for the secret, required marks, the sites and the steps that ask first", () => {
    const form = new RunFormState(deps(), spec, { onStarted: () => undefined });
    const { body } = render(RunForm, { props: { form } });
    expect(body).toMatch(/<input[^>]*name="password"[^>]*type="password"/);
    expect(body).toMatch(/<input[^>]*name="email"[^>]*type="email"/);
    expect(body).toMatch(/<textarea[^>]*name="notes"/);
    expect((body.match(/\(required\)/g) ?? []).length).toBe(3);
    expect(body).toContain("Sites it will touch:</span> 127.0.0.1");
    expect(body).toContain("Click 'Create account'");
    expect(body).toContain("In a separate browser");
  });

  it("offers In my browser only when the extension can run in a tab", () => {
    const without = render(RunForm, { props: { form: new RunFormState(deps(), spec, { onStarted: () => undefined }) } }).body;
    expect(without).toMatch(/<input[^>]*value="user_tab"[^>]*disabled/);
    expect(without).toContain("only the extension's side panel can lend the assistant a tab");
    const able = new RunFormState(deps({ ...noBrowser, tabRunAccess: async () => null, allowInTabRuns: async () => null }), spec, {
      onStarted: () => undefined,
    });
    expect(render(RunForm, { props: { form: able } }).body).not.toMatch(/<input[^>]*value="user_tab"[^>]*disabled/);
  });

  it("asks before a step with consequences in plain words, with Do it and Don't", () => {
    const { body } = render(RunConfirmation, {
      props: {
        pending: {
          confirmation_id: "6b0f1a5e-3c1d-4f7a-9b57-2a8f1c0d4e11",
          step_label: "Click 'Delete account'",
          reason: "destructive",
          asked_at: "2026-01-01T10:00:00.000Z",
        },
        busy: null,
        onanswer: () => undefined,
      },
    });
    expect(body).toContain("About to: Click 'Delete account'.");
    expect(body).toContain("This deletes or changes something");
    expect(body).toContain(">Do it<");
    expect(body).toContain(">Don't<");
  });

  it("shows a failed run with what the page showed, and Improve This Skill", () => {
    const failed = record({
      state: "failed",
      steps: [
        { step_id: "s1", label: "Open the sign-up page", result: "passed", details: "" },
        { step_id: "s2", label: "Click 'Create account'", result: "failed", details: "No such button" },
      ],
      failure: {
        code: "CHECKPOINT_NOT_CONFIRMED",
        message: "The account page did not appear",
        page_seen: { url: "http://127.0.0.1:1/signup", title: "Maintenance", headings: ["Back soon"], buttons: ["Retry"], screenshot_ref: "shot.png" },
      },
    });
    const progress = new RunProgressState(deps(), failed, spec);
    const { body } = render(RunProgress, { props: { progress, canImprove: true, onimprove: () => undefined, onagain: () => undefined } });
    for (const text of [
      "Maintenance",
      "Back soon",
      "Retry",
      "The account page did not appear",
      "Improve This Skill",
      "No such button",
      "Loading the screenshot",
    ])
      expect(body).toContain(text);
    expect(body).not.toContain(">Stop<");
  });

  it("offers no Improve This Skill for a run the person declined to finish", () => {
    const declined = record({
      state: "cancelled",
      failure: { code: "CONFIRMATION_DECLINED", message: "The step was declined, so it was not done and the run stopped." },
    });
    const { body } = render(RunProgress, {
      props: { progress: new RunProgressState(deps(), declined, spec), canImprove: true, onimprove: () => undefined, onagain: () => undefined },
    });
    expect(body).toContain("The step was declined");
    expect(body).not.toContain("Improve This Skill");
  });

  it("shows a skill that cannot run with a disabled Run and the reason", () => {
    const ability: Ability = {
      ability_id: spec.ability_id,
      title: spec.title,
      family: "browser",
      source: "learned",
      install_lane: "experimental_private",
      enabled: false,
      usable_now: false,
    };
    const { body } = render(AbilityItem, {
      props: {
        ability,
        lifecycle: true,
        busy: false,
        oncommand: () => undefined,
        onimprove: () => undefined,
        runEntry: { status: "ready", spec: { ...spec, runnable: false, not_runnable_reason: "It is deactivated: activate it first." } },
        onrun: () => undefined,
      },
    });
    expect(body).toMatch(/data-run-entry="not_runnable"[^>]*><button[^>]*disabled/);
    expect(body).toContain("Cannot run: It is deactivated: activate it first.");
  });
});

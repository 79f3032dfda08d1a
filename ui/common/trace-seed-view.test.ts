import { describe, expect, it } from "vitest";
import { CreateLearnSessionRequestSchema } from "../../shared/learning/sessions/create-learn-session";
import type { RunRecord } from "../../shared/execution/run-contract";
import { defaultSetupForm, planSetup } from "../learn/setup-plan";
import { canLearnFromRun, exampleOfRun, exampleOfSession, exampleRequestsOf, seedOfRun, seedOfSession } from "./trace-seed-view";

const id = () => "11111111-1111-4111-8111-111111111111";
const at = "2026-11-24T10:00:00.000Z";
const run = (over: Partial<RunRecord> = {}): RunRecord => ({
  dispatch_id: "run-1",
  ability_id: "learned.send-message",
  ability_title: "Send a message",
  state: "failed",
  where: "managed",
  caller: "side_panel",
  input_names: ["message"],
  steps: [
    { step_id: "setup-1", label: "Open the page", result: "passed", details: "" },
    { step_id: "s1", label: "Click 'Contact us'", result: "passed", details: "" },
    { step_id: "s2", label: "Click 'Send message'", result: "failed", details: "not found" },
  ],
  checkpoints: [],
  failure: { code: "STEP_FAILED", message: "The send button is gone." },
  started_at: at,
  updated_at: at,
  completed_at: at,
  schema_version: 1,
  ...over,
});

describe("Learn From This in the set-up", () => {
  it("sends the run as source_trace, with the run's sites to watch, and says where it stopped", () => {
    const seed = seedOfRun(run(), ["127.0.0.1:8123"]);
    expect(seed.title).toBe("Failed run of Send a message");
    expect(seed.detail).toContain("1 step");
    expect(seed.detail).toContain("Click 'Send message'");
    const atCheckpoint = seedOfRun(
      run({
        steps: [{ step_id: "s1", label: "Click 'Send'", result: "passed", details: "" }],
        checkpoints: [{ checkpoint_id: "cp-02", goal: "Sent with {{message}}", status: "failed" }],
      }),
      [],
    );
    expect(atCheckpoint.detail).toContain("It stopped where Sent with “message” no longer held.");
    const planned = planSetup({ ...defaultSetupForm("demonstrating_skill", seed.sites), seed }, id);
    expect(planned.ok).toBe(true);
    if (!planned.ok) return;
    expect(CreateLearnSessionRequestSchema.parse(planned.plan.create)).toMatchObject({
      source_trace: { kind: "run", dispatch_id: "run-1" },
      target_app_whitelist: ["http://127.0.0.1:8123"],
    });
  });

  it("makes the run's sites allow-list entries: the origin of a page the run saw, a loopback one over http, a host as it is", () => {
    const seen = run({
      failure: { code: "CHECKPOINT_NOT_CONFIRMED", message: "no", page_seen: { url: "https://shop.example:8443/sent", title: "", headings: [], buttons: [] } },
    });
    expect(seedOfRun(seen, ["shop.example:8443", "127.0.0.1:8123", "mail.example"]).sites).toEqual([
      "https://shop.example:8443",
      "http://127.0.0.1:8123",
      "mail.example",
    ]);
  });

  it("carries a run into Improve This Skill with the skill to improve", () => {
    const seed = seedOfRun(run(), []);
    const planned = planSetup({ ...defaultSetupForm("improving_existing_skill", ["a.example"]), targetSkillId: "learned.send-message", seed }, id);
    expect(planned.ok && planned.plan.create).toMatchObject({
      entry_mode: "improving_existing_skill",
      target_skill_id: "learned.send-message",
      source_trace: { kind: "run", dispatch_id: "run-1" },
    });
  });

  it("without a seed sends no source_trace", () => {
    const planned = planSetup(defaultSetupForm("demonstrating_skill", ["a.example"]), id);
    expect(planned.ok && "source_trace" in planned.plan.create).toBe(false);
  });

  it("offers a run only once it has ended having done a step, and names a session by its id", () => {
    expect(canLearnFromRun(run())).toBe(true);
    expect(canLearnFromRun(run({ completed_at: undefined, state: "running" }))).toBe(false);
    expect(canLearnFromRun(run({ steps: [{ step_id: "setup-1", label: "Open", result: "passed", details: "" }] }))).toBe(false);
    expect(seedOfSession({ learn_session_id: id(), created_at: at }, ["a.example"]).source).toEqual({ kind: "learn_session", learn_session_id: id() });
  });
});

describe("Use as Example's picker", () => {
  it("takes one request a line, without repeats, and says what to fix", () => {
    expect(exampleRequestsOf(" send the shop a note \n\nsend the shop a note\nmessage the shop")).toEqual({
      ok: true,
      requests: ["send the shop a note", "message the shop"],
    });
    expect(exampleRequestsOf("   ")).toMatchObject({ ok: false });
    expect(exampleRequestsOf("a\nb\nc\nd\ne\nf")).toMatchObject({ ok: false, problem: expect.stringContaining("five") });
    expect(exampleRequestsOf("ok\nfine request")).toMatchObject({ ok: false, problem: expect.stringContaining("too short") });
  });

  it("names a run or a session as the example, with a request to start from", () => {
    expect(exampleOfRun(run())).toEqual({ source: { kind: "run", dispatch_id: "run-1" }, title: "Failed run of Send a message", suggestion: "send a message" });
    expect(exampleOfSession({ learn_session_id: id(), created_at: at }).source).toEqual({ kind: "learn_session", learn_session_id: id() });
  });
});

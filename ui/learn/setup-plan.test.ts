import { describe, expect, it } from "vitest";
import { CreateLearnSessionRequestSchema } from "../../shared/learning/sessions/create-learn-session";
import { TestPolicySchema } from "../../shared/learning/sessions/test-policy";
import { SetRedactionRequestSchema } from "../../shared/observation/capture-protocol";
import { defaultSetupForm, planSetup } from "./setup-plan";

const id = () => "11111111-1111-4111-8111-111111111111";

describe("session set-up", () => {
  it("turns Watch My Actions into observation_mode only, with the sites, masking and a dry-run test policy", () => {
    const planned = planSetup(defaultSetupForm("demonstrating_skill", ["shop.example.com"]), id);
    expect(planned.ok).toBe(true);
    if (!planned.ok) return;
    const { create, redaction, testPolicy, sitesToGrant } = planned.plan;
    expect(CreateLearnSessionRequestSchema.parse(create)).toMatchObject({
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_whitelist: ["shop.example.com"],
      target_app_family: "browser",
      target_kind: "new_skill",
      build_policy: "build_then_review",
      execution_mode: "guided",
      allow_private_install: false,
    });
    expect(SetRedactionRequestSchema.parse(redaction)).toEqual({ text_entry: "mask_text", consent: false });
    expect(TestPolicySchema.parse(testPolicy)).toMatchObject({ mode: "dry_run_only", allowed_domains: ["shop.example.com"], forbid_external_send: true });
    expect(sitesToGrant).toEqual(["shop.example.com"]);
  });

  it("with Watch My Actions off, observes nothing and asks Chrome for nothing", () => {
    const form = { ...defaultSetupForm("demonstrating_skill", ["shop.example.com"]), watchMyActions: false };
    const planned = planSetup(form, id);
    expect(planned.ok && planned.plan.create.observation_mode).toBe("none");
    expect(planned.ok && planned.plan.create.target_app_whitelist).toEqual([]);
    expect(planned.ok && planned.plan.sitesToGrant).toEqual([]);
    expect(planned.ok && planned.plan.redaction).toBeUndefined();
  });

  it("records typed text only with the consent step, and sends the consent with it", () => {
    const form = { ...defaultSetupForm("demonstrating_skill", ["shop.example.com"]), masking: "none" as const };
    expect(planSetup(form, id)).toEqual({ ok: false, problems: ["Recording typed text needs your consent below, or choose a masking mode."] });
    const consented = planSetup({ ...form, consentToRecordText: true }, id);
    expect(consented.ok && consented.plan.redaction).toEqual({ text_entry: "none", consent: true });
  });

  it("needs a site to watch, the skill to improve, and refuses automatic install while it does not exist", () => {
    expect(planSetup(defaultSetupForm("demonstrating_skill", []), id)).toMatchObject({ ok: false, problems: [expect.stringContaining("site")] });
    expect(planSetup(defaultSetupForm("improving_existing_skill", ["a.example"]), id)).toMatchObject({ ok: false, problems: ["Name the skill to improve."] });
    const improving = planSetup({ ...defaultSetupForm("improving_existing_skill", ["a.example"]), targetSkillId: " weekly-report " }, id);
    expect(improving.ok && improving.plan.create).toMatchObject({ target_kind: "existing_skill", target_skill_id: "weekly-report" });
    expect(planSetup({ ...defaultSetupForm("demonstrating_skill", ["a.example"]), buildPolicy: "private_auto_install" }, id).ok).toBe(false);
  });

  it("watches this computer instead of sites, or alongside them, as a desktop session", () => {
    const alone = planSetup({ ...defaultSetupForm("demonstrating_skill", []), watchThisComputer: true }, id);
    expect(alone.ok && alone.plan.create).toMatchObject({ observation_mode: "outside_agent", target_app_family: "desktop", target_app_whitelist: [] });
    expect(alone.ok && alone.plan.sitesToGrant).toEqual([]);
    const both = planSetup({ ...defaultSetupForm("demonstrating_skill", ["a.example"]), watchThisComputer: true }, id);
    expect(both.ok && both.plan.create).toMatchObject({ target_app_family: "desktop", target_app_whitelist: ["a.example"] });
    expect(both.ok && both.plan.sitesToGrant).toEqual(["a.example"]);
    // Watch My Actions off wins: nothing is watched, not even this computer.
    const off = planSetup({ ...defaultSetupForm("demonstrating_skill", []), watchThisComputer: true, watchMyActions: false }, id);
    expect(off.ok && off.plan.create).toMatchObject({ observation_mode: "none", target_app_whitelist: [] });
    expect(off.ok && off.plan.create.target_app_family).toBeUndefined();
  });

  it("uses the safe domains given for the test policy, and no dry run when it is off", () => {
    const planned = planSetup({ ...defaultSetupForm("demonstrating_skill", ["a.example"]), dryRun: false, safeDomains: ["staging.a.example"] }, id);
    expect(planned.ok && planned.plan.testPolicy).toMatchObject({ mode: "safe_target_only", allowed_domains: ["staging.a.example"] });
  });
});

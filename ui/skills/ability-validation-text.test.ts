import { afterEach, describe, expect, it } from "vitest";
import { readyProposal } from "../../agent/test-support/ready-proposal";
import { shortDate, validationLine, versionLabel } from "./ability-validation-text";
import { SkillsCatalogState, type Ability } from "./skills-catalog.svelte";
import { startListeningAgent, type ListeningAgent } from "../test-support/listening-agent";

const base: Ability = {
  ability_id: "learned.export",
  title: "Export",
  family: "learned",
  install_lane: "experimental_private",
  enabled: true,
  usable_now: true,
  source: "learned",
};
const gb = { locale: "en-GB", timeZone: "UTC", now: new Date("2026-11-25T12:00:00Z") };

describe("the Skills card's version and last validation", () => {
  it("says the version, the day and how the validation ended, and that a partly checked one is not a pass", () => {
    const passed = { ...base, skill_version: "0.2.0", last_validated_at: "2026-11-24T10:05:00.000Z", last_validation_result: "passed" as const };
    expect(versionLabel(passed)).toBe("v0.2.0");
    expect(validationLine(passed, gb)).toMatchObject({ tone: "passed", text: "validated 24 Nov, passed" });
    expect(validationLine({ ...passed, last_validation_result: "partial" }, gb).text).toBe("validated 24 Nov, partly checked (some checks could not run)");
    expect(validationLine({ ...passed, last_validation_result: "failed" }, gb)).toMatchObject({ tone: "failed", text: "validated 24 Nov, failed" });
    expect(validationLine({ ...passed, last_validation_result: "cancelled" }, gb).text).toBe("validated 24 Nov, cancelled before it finished");
  });

  it("says when nothing was validated, and what is true of the assistant's own skills: their declared version or none, not validated here", () => {
    expect(validationLine(base, gb)).toEqual({ tone: "none", text: "no validation on record" });
    expect(validationLine({ ...base, source: "imported" }, gb).text).toBe("not validated here (imported)");
    const own: Ability = { ...base, ability_id: "native.canvas-design", family: "native", install_lane: "approved_workspace", source: "native" };
    expect(validationLine(own, gb)).toEqual({ tone: "none", text: "not validated here (the assistant's own skill)" });
    expect(validationLine({ ...own, ability_id: "bundled.pdf-tools", family: "bundled" }, gb).text).toBe("not validated here (bundled with the assistant)");
    expect(versionLabel(own)).toBe("no version declared");
    expect(versionLabel({ ...own, skill_version: "1.4.0" })).toBe("v1.4.0");
    // A time without its verdict is not a validation the card can describe.
    expect(validationLine({ ...base, last_validated_at: "2026-11-24T10:05:00.000Z" }, gb).tone).toBe("none");
    expect(versionLabel(base)).toBeUndefined();
  });

  it("names the year only when it is not this one, in the person's time zone", () => {
    expect(shortDate("2025-03-02T10:00:00Z", gb)).toBe("2 Mar 2025");
    expect(shortDate("2026-11-24T23:30:00Z", { ...gb, timeZone: "Asia/Tokyo" })).toBe("25 Nov");
  });
});

describe("the Skills page reads them from the agent", () => {
  let agent: ListeningAgent;
  afterEach(async () => {
    await agent.close();
  });

  it("shows the installed version and its validation as the agent recorded it", async () => {
    agent = await startListeningAgent();
    const { proposalId } = await readyProposal(agent.call);
    const run = await agent.call("POST", `/api/learn/proposals/${proposalId}/validate`, {
      test_values: {},
      selected_tests: ["lint", "trigger"],
      schema_version: 1,
    });
    expect(run.body.validation_run.overall_result).toBe("passed");
    expect((await agent.call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" })).status).toBe(200);

    const skills = new SkillsCatalogState(agent.deps());
    await skills.load();
    const ability = skills.abilities[0] as Ability;
    expect(versionLabel(ability)).toBe("v0.1.0");
    expect(ability.last_validated_at).toBe(run.body.validation_run.completed_at);
    expect(validationLine(ability, { locale: "en-GB", timeZone: "UTC" }).text).toBe(
      `validated ${shortDate(run.body.validation_run.completed_at as string, { locale: "en-GB", timeZone: "UTC" })}, passed`,
    );
    skills.destroy();
  });
});

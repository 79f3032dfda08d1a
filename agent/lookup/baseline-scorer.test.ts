import { describe, it, expect } from "vitest";
import type { AbilityAvailabilityEntry } from "../../shared/abilities/availability";
import { AbilityLookupResultSchema } from "../../shared/abilities/lookup-contract";
import { LOOKUP_MAX_RESULTS, LOOKUP_MIN_SCORE, lookupAbilities, lookupRejectionReason, scoreAbilityMatch } from "./baseline-scorer";
import { baselineEntry as entry, baselineQuery as query } from "../test-support/baseline-entries";

describe("scoreAbilityMatch (§0C.11C)", () => {
  it("adds 0.4 when the query contains a trigger phrase", () => {
    const scored = scoreAbilityMatch("please export invoices now", entry({ trigger_phrases: ["Export Invoices"] }));
    expect(scored.score).toBeCloseTo(0.43, 10);
    expect(scored.match_reasons[0]).toBe('trigger_phrase_match: "Export Invoices"');
  });

  it("adds 0.4 when a trigger phrase contains the whole query", () => {
    expect(scoreAbilityMatch("export", entry({ trigger_phrases: ["export invoices"] })).score).toBeCloseTo(0.43, 10);
  });

  it("adds 0.2 when a trigger shares at least two tokens with the query", () => {
    const scored = scoreAbilityMatch("invoices export monthly", entry({ trigger_phrases: ["export the invoices"] }));
    expect(scored.score).toBeCloseTo(0.23, 10);
    expect(scored.match_reasons[0]).toBe("trigger_partial_match: 2 tokens");
  });

  it("adds nothing for a single shared token", () => {
    expect(scoreAbilityMatch("export reports", entry({ trigger_phrases: ["export invoices"] })).score).toBeCloseTo(0.03, 10);
  });

  it("stops at the first trigger that matches, even partially", () => {
    // The second trigger would be a full 0.4 match, but the first already matched by tokens.
    const ability = entry({ trigger_phrases: ["csv report export", "send invoices"] });
    expect(scoreAbilityMatch("send invoices as csv report", ability).score).toBeCloseTo(0.23, 10);
  });

  it("keeps looking past triggers that do not match at all", () => {
    const ability = entry({ trigger_phrases: ["book a flight", "send invoices"] });
    expect(scoreAbilityMatch("send invoices today", ability).score).toBeCloseTo(0.43, 10);
  });

  it("returns a hard zero when a negative trigger appears, whatever else matched", () => {
    const ability = entry({
      trigger_phrases: ["export invoices"],
      negative_triggers: ["Delete"],
      install_lane: "shared_promoted",
      project_scopes: [],
      checkpoint_health: "strong",
    });
    const scored = scoreAbilityMatch("export invoices and delete them", ability);
    expect(scored.score).toBe(0);
    expect(scored.match_reasons).toEqual(['negative_trigger_match: "Delete"']);
  });

  it("adds 0.2 when two query tokens appear in the title, nothing for one", () => {
    const ability = entry({ title: "Export Monthly Invoices" });
    const two = scoreAbilityMatch("monthly invoices please", ability);
    expect(two.score).toBeCloseTo(0.23, 10);
    expect(two.match_reasons).toContain("title_match: 2 tokens");
    expect(scoreAbilityMatch("monthly report", ability).score).toBeCloseTo(0.03, 10);
  });

  it("adds 0.15 for the queried project and nothing for a different one", () => {
    const ability = entry({ project_scopes: ["proj-a"] });
    const hit = scoreAbilityMatch("unrelated words", ability, "proj-a");
    expect(hit.score).toBeCloseTo(0.18, 10);
    expect(hit.match_reasons).toContain("project_scope_match: proj-a");
    expect(scoreAbilityMatch("unrelated words", ability, "proj-b").score).toBeCloseTo(0.03, 10);
  });

  it("adds 0.05 for a global ability (no scopes or '*'), with or without a project", () => {
    const unscoped = scoreAbilityMatch("unrelated words", entry({ project_scopes: [] }), "proj-b");
    expect(unscoped.score).toBeCloseTo(0.08, 10);
    expect(unscoped.match_reasons).toContain("global_scope");
    expect(scoreAbilityMatch("unrelated words", entry({ project_scopes: ["*", "proj-x"] })).score).toBeCloseTo(0.08, 10);
  });

  it("prefers the project match over the global bonus when both apply", () => {
    const scored = scoreAbilityMatch("unrelated words", entry({ project_scopes: ["proj-a", "*"] }), "proj-a");
    expect(scored.score).toBeCloseTo(0.18, 10);
    expect(scored.match_reasons).not.toContain("global_scope");
  });

  it("ranks lanes shared > approved > private > quarantined", () => {
    const lane = (install_lane: AbilityAvailabilityEntry["install_lane"]) => scoreAbilityMatch("unrelated words", entry({ install_lane })).score;
    expect(lane("shared_promoted")).toBeCloseTo(0.1, 10);
    expect(lane("approved_workspace")).toBeCloseTo(0.07, 10);
    expect(lane("experimental_private")).toBeCloseTo(0.03, 10);
    expect(lane("quarantined")).toBe(0);
  });

  it("adds 0.05 for strong checkpoints, removes 0.05 for weak, ignores the rest", () => {
    const health = (checkpoint_health: AbilityAvailabilityEntry["checkpoint_health"]) =>
      scoreAbilityMatch("export invoices", entry({ trigger_phrases: ["export invoices"], checkpoint_health })).score;
    expect(health("strong")).toBeCloseTo(0.48, 10);
    expect(health("weak")).toBeCloseTo(0.38, 10);
    expect(health("moderate")).toBeCloseTo(0.43, 10);
    expect(health("no_data")).toBeCloseTo(0.43, 10);
  });

  it("halves the score of an ability that is not usable now and says why", () => {
    const scored = scoreAbilityMatch(
      "export invoices",
      entry({ trigger_phrases: ["export invoices"], usable_now: false, reason_unusable: "site not allowed" }),
    );
    expect(scored.score).toBeCloseTo(0.215, 10);
    expect(scored.match_reasons).toContain("usable_now=false: site not allowed");
    expect(scored.usable_now).toBe(false);
  });

  it("never returns a negative score", () => {
    const scored = scoreAbilityMatch("unrelated words", entry({ install_lane: "quarantined", checkpoint_health: "weak" }));
    expect(scored.score).toBe(0);
  });
});

describe("lookupAbilities (§0C.11C)", () => {
  it("includes a score of exactly the 0.15 threshold and drops anything below", () => {
    const matches = lookupAbilities(query(), [
      entry({ ability_id: "at-threshold", install_lane: "shared_promoted", project_scopes: [] }), // 0.05 + 0.1
      entry({ ability_id: "below", install_lane: "approved_workspace", project_scopes: [] }), // 0.05 + 0.07
    ]);
    expect(LOOKUP_MIN_SCORE).toBe(0.15);
    expect(matches.map((m) => m.ability_id)).toEqual(["at-threshold"]);
  });

  it("returns at most 10 matches, best first, ties by ability_id", () => {
    const trigger = { trigger_phrases: ["export invoices"], project_scopes: [] };
    const abilities = [
      entry({ ability_id: "low-1", install_lane: "shared_promoted", project_scopes: [] }), // 0.15
      ...["s3", "s1", "s2"].map((id) => entry({ ...trigger, ability_id: id, install_lane: "shared_promoted" })), // 0.55
      ...["a2", "a1", "a3"].map((id) => entry({ ...trigger, ability_id: id, install_lane: "approved_workspace" })), // 0.52
      ...["t4", "t2", "t1", "t3"].map((id) => entry({ ...trigger, ability_id: id, install_lane: "shared_promoted", checkpoint_health: "strong" })), // 0.6
      entry({ ability_id: "low-2", install_lane: "shared_promoted", project_scopes: [] }), // 0.15
    ];
    const matches = lookupAbilities(query({ user_query: "export invoices" }), abilities);
    expect(matches).toHaveLength(LOOKUP_MAX_RESULTS);
    expect(matches.map((m) => m.ability_id)).toEqual(["t1", "t2", "t3", "t4", "s1", "s2", "s3", "a1", "a2", "a3"]);
  });

  it("excludes quarantined abilities however well they match", () => {
    const everyLane = query({
      user_query: "export invoices",
      install_lanes_allowed: ["experimental_private", "approved_workspace", "shared_promoted"],
    });
    const matches = lookupAbilities(everyLane, [
      entry({ ability_id: "q-lane", install_lane: "quarantined", trigger_phrases: ["export invoices"] }),
      entry({
        ability_id: "q-health",
        install_lane: "shared_promoted",
        checkpoint_health: "quarantined",
        trigger_phrases: ["export invoices"],
      }),
      entry({ ability_id: "ok", install_lane: "shared_promoted", trigger_phrases: ["export invoices"] }),
    ]);
    expect(matches.map((m) => m.ability_id)).toEqual(["ok"]);
    // Explain-match must say "quarantined", not blame the lane filter.
    expect(lookupRejectionReason(everyLane, entry({ install_lane: "quarantined" }))).toBe("quarantined");
  });

  it("searches only the allowed lanes", () => {
    const abilities = [
      entry({ ability_id: "approved", install_lane: "approved_workspace", trigger_phrases: ["export invoices"] }),
      entry({ ability_id: "shared", install_lane: "shared_promoted", trigger_phrases: ["export invoices"] }),
    ];
    const matches = lookupAbilities(query({ user_query: "export invoices", install_lanes_allowed: ["shared_promoted"] }), abilities);
    expect(matches.map((m) => m.ability_id)).toEqual(["shared"]);
  });

  it("finds the user's private abilities by default and hides them when asked to", () => {
    const privateAbility = entry({ ability_id: "mine", trigger_phrases: ["export invoices"] });
    expect(lookupAbilities(query({ user_query: "export invoices" }), [privateAbility])).toHaveLength(1);
    expect(lookupAbilities(query({ user_query: "export invoices", include_private_owned_by_user: false }), [privateAbility])).toHaveLength(0);
    expect(lookupRejectionReason(query({ include_private_owned_by_user: false }), privateAbility)).toBe("install_lane_not_allowed: experimental_private");
  });

  it("still lists private abilities when the lane is requested explicitly", () => {
    const privateAbility = entry({ ability_id: "mine", trigger_phrases: ["export invoices"] });
    const explicit = query({
      user_query: "export invoices",
      include_private_owned_by_user: false,
      install_lanes_allowed: ["experimental_private"],
    });
    expect(lookupAbilities(explicit, [privateAbility])).toHaveLength(1);
  });

  it("returns matches in the AbilityLookupResult shape, demoted but present when unusable", () => {
    const matches = lookupAbilities(query({ user_query: "export invoices" }), [
      entry({
        ability_id: "offline",
        install_lane: "shared_promoted",
        trigger_phrases: ["export invoices"],
        usable_now: false,
        reason_unusable: "agent offline",
      }),
    ]);
    expect(matches).toEqual([
      { ability_id: "offline", score: expect.closeTo(0.25, 10), install_lane: "shared_promoted", usable_now: false, reason_unusable: "agent offline" },
    ]);
    expect(matches[0]).not.toHaveProperty("match_reasons");
    expect(AbilityLookupResultSchema.safeParse({ matches, created_at: "2026-01-01T00:00:00Z", schema_version: 1 }).success).toBe(true);
  });
});

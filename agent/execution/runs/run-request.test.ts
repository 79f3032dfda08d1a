import { describe, expect, it } from "vitest";
import { StartRunRequestSchema, type AbilityRunSpec } from "../../../shared/execution/run-contract";
import { isAppError } from "../../errors/app-error";
import { runPolicyOf, validateRunRequest } from "./run-request";

const SPEC: AbilityRunSpec = {
  ability_id: "learned.book-a-room",
  title: "Book a room",
  description: "Book a meeting room",
  runnable: true,
  inputs: [
    { name: "email", label: "Email", type: "email", secret: false, required: true },
    { name: "people", label: "People", type: "number", secret: false, required: true },
    { name: "day", label: "Day", type: "date", secret: false, required: true },
    { name: "pin", label: "PIN", type: "secret", secret: true, required: true },
  ],
  sites: ["rooms.example.com", "127.0.0.1:8080"],
  checkpoints: [],
  confirmation_steps: [],
  schema_version: 1,
};

const request = (fields: Record<string, unknown>) => StartRunRequestSchema.parse({ ability_id: SPEC.ability_id, schema_version: 1, ...fields });
const GOOD = { email: "a@b.example", people: "4", day: "2026-03-31", pin: "0000-secret" };

function issuesOf(fields: Record<string, unknown>): Array<{ path: string; message: string }> {
  try {
    validateRunRequest(request(fields), SPEC);
    return [];
  } catch (error) {
    if (!isAppError(error) || error.code !== "REQUEST_INVALID") throw error;
    return error.issues ?? [];
  }
}

describe("validateRunRequest", () => {
  it("accepts every input given in its type's shape", () => {
    expect(issuesOf({ inputs: GOOD })).toEqual([]);
  });

  it("names each wrong, unknown or missing input without quoting any value", () => {
    const issues = issuesOf({
      inputs: { email: "not-an-address-zz9", people: "several-zz9", day: "someday-zz9", extra: "x-zz9" },
      allowed_sites: ["https://x.example/path"],
      tab_id: 4,
    });
    expect(issues.map((issue) => issue.path).sort()).toEqual([
      "allowed_sites.0",
      "inputs.day",
      "inputs.email",
      "inputs.extra",
      "inputs.people",
      "inputs.pin",
      "tab_id",
    ]);
    expect(JSON.stringify(issues)).not.toContain("zz9");
  });
});

describe("runPolicyOf", () => {
  it("without a test policy: live_read_safe_write over the ability's sites and the ones allowed for this run, 200 actions", () => {
    const policy = runPolicyOf(request({ inputs: GOOD, allowed_sites: ["Help.Example.com"] }), SPEC);
    expect(policy).toMatchObject({
      mode: "live_read_safe_write",
      allowed_domains: ["rooms.example.com", "127.0.0.1:8080", "help.example.com"],
      max_actions: 200,
      forbid_external_send: true,
      forbid_destructive_writes: true,
    });
  });

  it("obeys a test policy exactly when it stays within those sites, and refuses one that does not", () => {
    const policy = { policy_id: crypto.randomUUID(), mode: "dry_run_only", allowed_domains: ["rooms.example.com"], max_actions: 12, schema_version: 1 };
    expect(runPolicyOf(request({ inputs: GOOD, test_policy: policy }), SPEC)).toEqual(
      StartRunRequestSchema.parse({ ability_id: SPEC.ability_id, schema_version: 1, test_policy: policy }).test_policy,
    );
    const wider = { ...policy, allowed_domains: ["rooms.example.com", "127.0.0.1"] };
    expect(() => runPolicyOf(request({ inputs: GOOD, test_policy: wider }), SPEC)).toThrow(expect.objectContaining({ code: "TEST_POLICY_VIOLATION" }));
  });
});

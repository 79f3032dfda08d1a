import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunNotice } from "../../../shared/execution/run-notice";
import type { RunRecord } from "../../../shared/execution/run-contract";
import type { MemoryStore } from "../../memory/memory-store";
import { openTempMemoryStore } from "../../test-support/temp-memory";
import { createRunNotices } from "./run-notices";
import { createRunStore, type RunStore } from "./run-store";

const AT = "2026-01-01T10:00:00.000Z";
const CONFIRMATION = "0b4f6a62-9a0e-4c3a-8e2f-3b7a1d2c4e5f";

function record(state: RunRecord["state"], patch: Partial<RunRecord> = {}): RunRecord {
  return {
    dispatch_id: "run-1",
    ability_id: "send-a-message",
    ability_title: "Send a message",
    state,
    where: "managed",
    caller: "mcp",
    input_names: ["message"],
    steps: [],
    checkpoints: [{ checkpoint_id: "c1", goal: "The message shows as sent", status: "not_reached", evidence: "evidence text" }],
    started_at: AT,
    updated_at: AT,
    schema_version: 1,
    ...patch,
  };
}

const waitingRecord = () =>
  record("needs_confirmation", {
    pending_confirmation: { confirmation_id: CONFIRMATION, step_label: 'Click "Send message" (button)', reason: "committing_submit", asked_at: AT },
  });

let memory: MemoryStore;
let cleanup: () => Promise<void>;
let store: RunStore;
beforeEach(async () => {
  ({ memory, cleanup } = await openTempMemoryStore());
  store = createRunStore(memory);
});
afterEach(async () => cleanup());

function feed() {
  const lookedUp: string[] = [];
  const notices = createRunNotices({
    store,
    sitesOf: async (abilityId) => {
      lookedUp.push(abilityId);
      return ["contact.example:8080"];
    },
  });
  const heard: RunNotice[] = [];
  notices.subscribe((notice) => heard.push(notice));
  return { notices, heard, lookedUp };
}

/** Notices are made after the store's write, with the sites read asynchronously: wait for them. */
const until = async (check: () => boolean) => {
  for (let i = 0; i < 100 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe("the run-notice feed (issue #33)", () => {
  it("tells when a run starts waiting, with the step and the ability's sites, and lists it as waiting", async () => {
    const { notices, heard } = feed();
    await store.save(record("running"), "run.state");
    await store.save(waitingRecord(), "run.needs_confirmation");
    await until(() => heard.length === 1);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({
      dispatch_id: "run-1",
      ability_title: "Send a message",
      state: "needs_confirmation",
      caller: "mcp",
      sites: ["contact.example:8080"],
      pending_confirmation: { confirmation_id: CONFIRMATION, step_label: 'Click "Send message" (button)' },
    });
    // What a notice carries is the record's words, not its evidence.
    expect(JSON.stringify(heard[0])).not.toContain("evidence text");
    expect(notices.waiting().map((notice) => notice.dispatch_id)).toEqual(["run-1"]);
  });

  it("tells when the answer came (back to running) and when the run ended, and then nothing waits", async () => {
    const { notices, heard, lookedUp } = feed();
    await store.save(waitingRecord(), "run.needs_confirmation");
    await store.save(record("running"), "run.state");
    await store.save(record("running", { steps: [{ step_id: "s1", label: "Click", result: "passed", details: "" }] }), "run.step");
    await store.save(
      record("failed", {
        failure: { code: "CHECKPOINT_NOT_CONFIRMED", message: "The page did not show it." },
        checkpoints: [{ checkpoint_id: "c1", goal: "The message shows as sent", status: "failed" }],
      }),
      "run.finished",
    );
    await until(() => heard.length === 3);
    expect(heard.map((notice) => notice.state)).toEqual(["needs_confirmation", "running", "failed"]);
    expect(heard[2]).toMatchObject({
      failure: { code: "CHECKPOINT_NOT_CONFIRMED" },
      checkpoints: [{ goal: "The message shows as sent", status: "failed" }],
    });
    expect(notices.waiting()).toEqual([]);
    // The sites are read once for the run.
    expect(lookedUp).toEqual(["send-a-message"]);
  });

  it("says nothing of a run that goes on without waiting", async () => {
    const { heard } = feed();
    await store.save(record("running"), "run.state");
    await store.save(record("running"), "run.checkpoint");
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(heard).toEqual([]);
  });

  it("names no site when the ability's cannot be read, and still tells", async () => {
    const notices = createRunNotices({ store, sitesOf: async () => Promise.reject(new Error("gone")) });
    const heard: RunNotice[] = [];
    notices.subscribe((notice) => heard.push(notice));
    await store.save(waitingRecord(), "run.needs_confirmation");
    await until(() => heard.length === 1);
    expect(heard[0]?.sites).toEqual([]);
  });
});

import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openMemoryStore, type MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import { makeTempMemoryRoot } from "../../test-support/temp-memory";
import { createFakeClock, type FakeClock } from "../../test-support/test-agent";
import type { ConfirmationRequest } from "../contract/executor-contract";
import { createApprovals, type Approvals, type GrantBasis, type RunFacts } from "./approvals";

/**
 * "Is this step allowed now?" (issue #33) on a real memory store: each term of a grant — site,
 * version, step, inputs, classes, expiry, revocation — asks again when it does not hold; grants and
 * the key survive a restart; no value is written.
 */
let root: string;
let cleanup: () => Promise<void>;
let memory: MemoryStore;
let clock: FakeClock;
let approvals: Approvals;

beforeEach(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot());
  memory = await openMemoryStore({ root });
  clock = createFakeClock();
  approvals = await createApprovals({ memory, clock });
});
afterEach(async () => {
  await memory.close();
  await cleanup();
});

const facts = (values: Record<string, string>, extra: Partial<RunFacts> = {}): RunFacts => ({
  dispatch_id: "run-00000000-0000-4000-8000-000000000001",
  ability_id: "learned.send-a-message",
  ability_title: "Send a message",
  skill_version: "0.1.0",
  values,
  secret_names: new Set(["password"]),
  scrub: (text) => text,
  ...extra,
});
const STEP: ConfirmationRequest = {
  step_id: "s3",
  step_label: "Click 'Send message'",
  reason: "committing_submit",
  site_host: "mail.test:8080",
  consequence_classes: [],
};

/** Asks once under these facts; answers how the step was allowed ("grant", "asked") and the basis the person would have seen. */
async function ask(runFacts: RunFacts, request: ConfirmationRequest = STEP): Promise<{ how: "grant" | "asked"; basis: GrantBasis | undefined }> {
  let basis: GrantBasis | undefined;
  let how: "grant" | "asked" = "asked";
  await approvals.confirmer(
    runFacts,
    async (_request, offered) => {
      basis = offered;
      return false;
    },
    () => (how = "grant"),
  )(request);
  return { how, basis };
}

async function grantFor(runFacts: RunFacts, terms: Parameters<Approvals["grant"]>[1], request: ConfirmationRequest = STEP) {
  const { basis } = await ask(runFacts, request);
  if (basis === undefined) throw new Error("no offer");
  return approvals.grant(basis, terms);
}

describe("approvals", () => {
  it("every term must hold: version, site, step, inputs (secrets never part of them), expiry", async () => {
    const expires = new Date(clock.now().getTime() + 60_000).toISOString();
    await grantFor(facts({ recipient: "ann@example.test", password: "p-1" }), { inputs: "exact", consequence_classes: [], expires_at: expires });
    expect((await ask(facts({ recipient: "ann@example.test", password: "other" }))).how).toBe("grant");
    expect((await ask(facts({ recipient: "bob@example.test", password: "p-1" }))).how).toBe("asked");
    expect((await ask(facts({ recipient: "ann@example.test" }, { skill_version: "0.2.0" }))).how).toBe("asked");
    expect((await ask(facts({ recipient: "ann@example.test" }), { ...STEP, site_host: "evil.test" })).how).toBe("asked");
    expect((await ask(facts({ recipient: "ann@example.test" }), { ...STEP, step_id: "s4" })).how).toBe("asked");
    expect((await ask(facts({ recipient: "ann@example.test" }), { ...STEP, consequence_classes: ["pays"] })).how).toBe("asked");
    expect((await ask(facts({ recipient: "ann@example.test", cc: "x" }))).how).toBe("asked");
    clock.advance(60_000);
    expect((await ask(facts({ recipient: "ann@example.test" }))).how).toBe("asked");
    expect(approvals.list("learned.send-a-message")[0]?.state).toBe("expired");
  });

  it("no offer without a skill version or a site; a pay step needs pays ticked", async () => {
    expect((await ask(facts({}, { skill_version: undefined }))).basis).toBeUndefined();
    expect((await ask(facts({}), { ...STEP, site_host: undefined })).basis).toBeUndefined();
    const pay = { ...STEP, consequence_classes: ["pays" as const] };
    await expect(grantFor(facts({}), { inputs: "any", consequence_classes: [] }, pay)).rejects.toMatchObject({ code: "REQUEST_INVALID" });
    expect(approvals.list("learned.send-a-message")).toEqual([]);
    await grantFor(facts({}), { inputs: "any", consequence_classes: ["pays"] }, pay);
    expect((await ask(facts({ recipient: "any" }), pay)).how).toBe("grant");
  });

  it("grants, their uses and the key survive a restart; revoking and deleting the ability end them; no value is written", async () => {
    const grant = await grantFor(facts({ recipient: "ann@example.test" }), { inputs: "exact", consequence_classes: [] });
    await memory.close();
    memory = await openMemoryStore({ root });
    approvals = await createApprovals({ memory, clock });
    expect((await ask(facts({ recipient: "ann@example.test" }))).how).toBe("grant");
    expect(approvals.list("learned.send-a-message")[0]).toMatchObject({ grant_id: grant.grant_id, use_count: 1 });
    await expect(approvals.revoke("learned.other", grant.grant_id)).rejects.toMatchObject({ code: "RUN_GRANT_NOT_FOUND" });
    await approvals.revoke("learned.send-a-message", grant.grant_id);
    expect((await ask(facts({ recipient: "ann@example.test" }))).how).toBe("asked");
    await grantFor(facts({}), { inputs: "any", consequence_classes: [] });
    expect(await approvals.revokeAbility("learned.send-a-message")).toBe(1);
    expect((await ask(facts({}))).how).toBe("asked");
    for (const file of [MemoryPaths.grantsLog, MemoryPaths.grantsCurrent])
      expect(await readFile(path.join(root, file), "utf8")).not.toContain("ann@example.test");
    expect((await stat(path.join(root, MemoryPaths.grantKey))).mode & 0o777).toBe(0o600);
  });
});

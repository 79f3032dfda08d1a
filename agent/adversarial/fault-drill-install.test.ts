import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUNDS } from "../test-support/adversarial/drill-memory";
import { COMPLETE_INSTALL, runInstallDrill as runInstallDrillIn } from "../test-support/adversarial/install-drill";

/**
 * Issue #8 fault drill: the real agent (`agent/server.ts` as a child process) killed with SIGKILL
 * at seeded points of the install saga (install-drill.ts), then restarted. What is promised
 * (DESIGN §5): no file is left corrupt, nothing half-installed is usable, and the agent starts again.
 */
let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "elnor-fault-drills-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});
// Both checks read the same seeded rounds: the drill runs once (20 kills take most of a minute).
let drill: ReturnType<typeof runInstallDrillIn> | undefined;
const runInstallDrill = () => (drill ??= runInstallDrillIn(scratch));

describe("fault drill: SIGKILL during the install saga", () => {
  it(`leaves no corrupt file, never projects half a skill, keeps the other abilities, and the agent starts, across ${ROUNDS} kills`, async () => {
    const results = await runInstallDrill();
    for (const result of results) {
      expect.soft(result.corrupt, result.context).toEqual([]);
      // The copy the assistant reads is never half a skill (staging folder, then one rename).
      expect.soft(result.projectionWhole, result.context).toBe(true);
      // Every file of a finished install is the reviewed draft, byte for byte.
      if (result.installedFiles.length === COMPLETE_INSTALL.length) expect.soft(result.fullyInstalled, result.context).toBe(true);
      // The ability installed before is untouched by a crash in another one's saga.
      expect.soft(result.keptUsable, result.context).toBe(true);
    }
    // The drill reached into the saga, not only before or after it.
    expect(results.filter((result) => result.sessionAtCrash === "installing_private").length).toBeGreaterThan(0);
  }, 240_000);

  // Found by this drill and fixed with the install saga's journal (agent/abilities/ability-service.ts
  // `recover`): before it, a crash left the ability usable but unregistered, half-materialized
  // files, or the session stuck in installing_private for ever.
  it(`a restart recovers an interrupted install saga — nothing usable unless installed, no half files, no stuck session (${ROUNDS} kills)`, async () => {
    const results = await runInstallDrill();
    for (const result of results) {
      if (result.usable || result.found) {
        expect
          .soft(
            { registered: result.registered, fullyInstalled: result.fullyInstalled, projected: result.projected, session: result.session },
            `usable but not installed: ${result.context}`,
          )
          .toEqual({
            registered: true,
            fullyInstalled: true,
            projected: true,
            session: "installed_private",
          });
      }
      if (result.installedFiles.length > 0 && !result.fullyInstalled)
        expect.soft(result.session, `half-installed files left: ${result.context}`).toBe("quarantined");
      expect.soft(["ready_for_review", "installed_private", "quarantined"], `stuck mid-saga after restart: ${result.context}`).toContain(result.session);
      expect.soft(result.projectionLeftovers, `projection folders left after restart: ${result.context}`).toEqual([]);
      // A proposal still waiting for review blocks a new session by design (§0C.1B); nothing else may.
      if (result.session !== "ready_for_review") expect.soft(result.newSessionStatus, `learning blocked after restart: ${result.context}`).not.toBe(409);
    }
  }, 240_000);
});

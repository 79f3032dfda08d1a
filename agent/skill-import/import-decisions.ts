import type { SkillImportRetryKind } from "../../shared/skills/import-state";
import type { SkillImportTerminalActionResponse, SkillTriggerTestRequest, SkillTriggerTestResponse } from "../../shared/skills/import";
import type { AbilityService } from "../abilities/ability-service";
import type { AbilityRegistry } from "../abilities/ability-registry";
import type { WorkspaceProjector } from "../abilities/workspace-projection";
import type { Clock } from "../common/clock";
import { AppError } from "../errors/app-error";
import type { MemoryStore } from "../memory/memory-store";
import type { ImportFlow } from "./import-flow";
import { install, installPrivately } from "./import-install";
import { ImportPaths, type ImportCase, type ImportStore } from "./import-store";
import { triggerTest } from "./import-trigger-test";

/**
 * The second half of §0C.20: the decisions on a staged import (install privately, approve,
 * reject, discard), retries of failed steps, and the trigger test (`import-trigger-test.ts`).
 * Installing (`import-install.ts`) keeps the bundle's archive byte for byte in ELNOR_MEMORY, projects
 * its files into the assistant's skill folder and registers the ability; a failed install leaves
 * nothing behind.
 */

export interface ImportDecisionDeps {
  memory: MemoryStore;
  store: ImportStore;
  flow: ImportFlow;
  registry: AbilityRegistry;
  abilities: AbilityService;
  projector: WorkspaceProjector;
  clock: Clock;
}

type Action = Promise<SkillImportTerminalActionResponse>;

export function createImportDecisions(deps: ImportDecisionDeps) {
  const { store, flow, memory } = deps;

  return {
    async installPrivate(importId: string, scope: "private" | "workspace"): Action {
      if (scope === "workspace")
        throw new AppError("INSTALL_LANE_DENIED", "Install privately installs for you only; approve the import to add it to the workspace.");
      const entry = await flow.caseOf(importId);
      flow.assertMove(entry, "install_queued");
      return installPrivately(deps, entry);
    },

    async approve(importId: string, note?: string): Action {
      const entry = await flow.caseOf(importId);
      flow.assertMove(entry, "approved");
      // Approval installs into the workspace lane; a failure leaves the import in review, as it was.
      const abilityId = await install(deps, entry, "approved_workspace");
      const approved = await store.move(
        { ...entry, ability_id: abilityId, ...(note === undefined ? {} : { decision_note: note }) },
        "approved",
        "approved for the workspace",
      );
      const receiptId = await store.receipt("skill.import.approved", { import_id: importId, ability_id: abilityId });
      return { import_record: approved.record, receipt_id: receiptId, schema_version: 1 };
    },

    async reject(importId: string, reason: string): Action {
      const entry = await flow.caseOf(importId);
      flow.assertMove(entry, "rejected");
      const rejected = await store.move({ ...entry, decision_note: reason }, "rejected", reason);
      await memory.remove(ImportPaths.staged(importId));
      const receiptId = await store.receipt("skill.import.rejected", { import_id: importId, details: { reason: reason.slice(0, 240) } });
      return { import_record: rejected.record, receipt_id: receiptId, schema_version: 1 };
    },

    async discard(importId: string, reason?: string): Action {
      const entry = await flow.caseOf(importId);
      flow.assertMove(entry, "discarded");
      const discarded = await store.move(entry, "discarded", reason ?? "discarded by the user");
      await memory.remove(ImportPaths.staged(importId));
      if (entry.record.source_ref_kind === "temp_artifact") {
        await memory.remove(ImportPaths.uploadBytes(entry.temp_artifact_ref));
        await memory.remove(ImportPaths.uploadMeta(entry.temp_artifact_ref));
      }
      const receiptId = await store.receipt("skill.import.discarded", { import_id: importId });
      return { import_record: discarded.record, receipt_id: receiptId, schema_version: 1 };
    },

    /** §0C.20: the only way out of a failed state; a retry that fails again counts toward `retry_limit_reached`. */
    async retry(importId: string, kind: SkillImportRetryKind): Action {
      const entry = await flow.caseOf(importId);
      const to = kind === "scan" ? "scanning" : kind === "stage" ? "staging" : "install_queued";
      flow.assertMove(entry, to, kind);
      const counted: ImportCase = { ...entry, record: { ...entry.record, retry_count: entry.record.retry_count + 1 } };
      await store.receipt("skill.import.retried", { import_id: importId, details: { retry_kind: kind, attempt: counted.record.retry_count } });
      let result: { entry: ImportCase; receiptId: string | undefined };
      if (kind === "install") {
        // install_failed → install_queued is the retry edge; installPrivately moves it there.
        const response = await installPrivately(deps, counted, true);
        result = { entry: await flow.caseOf(importId), receiptId: response.receipt_id };
      } else {
        const moved = await store.move(counted, to, `retry of ${kind}`);
        result = kind === "scan" ? await flow.runScan(moved) : await flow.runStage(moved);
      }
      const failedAgain = ["scan_failed", "stage_failed", "install_failed"].includes(result.entry.record.stage_state);
      if (failedAgain) {
        result.entry = { ...result.entry, failed_retries: { ...result.entry.failed_retries, [kind]: result.entry.failed_retries[kind] + 1 } };
        await store.writeCase(result.entry);
      }
      return { import_record: result.entry.record, ...(result.receiptId === undefined ? {} : { receipt_id: result.receiptId }), schema_version: 1 };
    },

    /** §0C.20 trigger test: would lookup pick this import (or installed ability) for this text? */
    triggerTest: (request: SkillTriggerTestRequest): Promise<SkillTriggerTestResponse> => triggerTest(deps, request),
  };
}

export type ImportDecisions = ReturnType<typeof createImportDecisions>;

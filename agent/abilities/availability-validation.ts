import { ValidationRunSchema } from "../../shared/learning/proposals/validation-run";
import type { SkillBundleProposal } from "../../shared/skills/proposal";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import type { InstalledAbility } from "./ability-registry";

/** What an installed ability records of the validation behind it (§0C.11A `last_validated_at`). */
export type InstalledValidation = Pick<InstalledAbility, "last_validated_at" | "last_validation_result" | "last_validation_run_id">;

const DRAFT_REF_PREFIX = "draft:";

/**
 * The `result_refs` entry of a validation run (§0C.10) naming the draft revision it checked: a
 * proposal revised after its validation is new content, and must not inherit the old verdict.
 */
export const validatedDraftRef = (draftSkillPath: string) => `${DRAFT_REF_PREFIX}${draftSkillPath}`.slice(0, 240);

/**
 * The finished validation run of exactly the revision being installed, newest first, as the
 * installed ability records it. Nothing when the proposal was never validated, when it was revised
 * since, or when its runs predate the revision ref (which revision they checked cannot be told,
 * and saying "validated" of content nobody checked is the one answer that must not happen).
 */
export async function validationOfInstalledContent(memory: MemoryStore, proposal: SkillBundleProposal): Promise<InstalledValidation> {
  const ref = validatedDraftRef(proposal.draft_skill_path);
  const runs = (await memory.readJsonl(MemoryPaths.validationRuns, ValidationRunSchema)).filter(
    (run) => run.proposal_id === proposal.proposal_id && run.completed_at !== undefined && run.result_refs.includes(ref),
  );
  const latest = runs.sort((a, b) => (a.completed_at ?? "").localeCompare(b.completed_at ?? "")).at(-1);
  if (latest?.completed_at === undefined) return {};
  return { last_validated_at: latest.completed_at, last_validation_result: latest.overall_result, last_validation_run_id: latest.validation_run_id };
}

/**
 * The file names of a skill folder, typed once. A proposal's draft revision keeps its files side by
 * side (`DraftFiles`); an installed skill keeps SKILL.md at the top and what a run and the lookup
 * need under `tests/` (`InstalledFiles`, README "installed skill"); the assistant's projected copy
 * has the installed layout's SKILL.md and trigger tests.
 */

export const SKILL_MD = "SKILL.md";

/** A draft revision's files (`system/learning/drafts/<proposal>/rev-NNN/`), by what they hold. */
export const DraftFiles = {
  skill: SKILL_MD,
  flow: "flow.recorder.json",
  checkpoints: "checkpoints.json",
  parameters: "parameters.json",
  triggerTests: "trigger-tests.json",
  manifest: "capability-manifest.json",
  examples: "examples.json",
  skillDelta: "skill-delta.json",
  refinement: "refinement.json",
  checkpointLint: "checkpoint-lint.json",
} as const;

/** An installed skill's files, relative to its folder. */
export const InstalledFiles = {
  skill: SKILL_MD,
  flow: `tests/${DraftFiles.flow}`,
  checkpoints: `tests/${DraftFiles.checkpoints}`,
  parameters: `tests/${DraftFiles.parameters}`,
  triggerTests: `tests/${DraftFiles.triggerTests}`,
} as const;

/** The draft files an install copies, each with where it goes in the installed folder. */
export const INSTALLED_FROM_DRAFT: ReadonlyArray<readonly [draft: string, installed: string]> = [
  [DraftFiles.skill, InstalledFiles.skill],
  [DraftFiles.flow, InstalledFiles.flow],
  [DraftFiles.triggerTests, InstalledFiles.triggerTests],
  [DraftFiles.checkpoints, InstalledFiles.checkpoints],
  [DraftFiles.parameters, InstalledFiles.parameters],
];

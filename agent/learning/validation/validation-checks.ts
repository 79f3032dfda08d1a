import { randomUUID } from "node:crypto";
import type { AbilityAvailabilityEntry } from "../../../shared/abilities/availability";
import type { ValidationStepResult } from "../../../shared/learning/proposals/validation-run";
import { TestPolicySchema, type TestPolicy } from "../../../shared/learning/sessions/test-policy";
import { lintCheckpoints } from "../compiler/checkpoints/checkpoint-lint";
import { parseSkillFrontmatter } from "../../../shared/skills/frontmatter";
import type { TriggerTests } from "../compiler/emit-skill";
import type { RecorderFlow } from "../../../shared/execution/recorder-flow";
import type { CheckpointPlan } from "../../../shared/execution/checkpoint-plan";
import { DraftFiles } from "../../../shared/skills/skill-folder";
import type { ValidationServiceDeps } from "./validation-service";

/** The checks of a validation run that need no browser: lint, collisions, trigger tests; and the default rehearsal policy. */

export type Check = Omit<ValidationStepResult, "validation_run_id" | "created_at" | "schema_version">;
const STRUCTURE_SECTIONS = ["## When to use", "## When not to use", "## Inputs", "## Checkpoints", "## Guidance", "## Safety"];

/** `installed` excludes this proposal's own ability, so any overlap is a real collision. */
export function lintChecks(
  files: Record<string, string>,
  checkpoints: CheckpointPlan[],
  installed: AbilityAvailabilityEntry[],
  slug: string,
  triggers: string[],
): Check[] {
  const checks: Check[] = [];
  const markdown = files[DraftFiles.skill] ?? "";
  const frontmatter = parseSkillFrontmatter(markdown);
  checks.push({
    test_case_id: "lint:frontmatter",
    label: "SKILL.md frontmatter is valid (§0.2C)",
    result: frontmatter ? "passed" : "failed",
    details: frontmatter ? `name ${frontmatter.name}` : "frontmatter missing or invalid",
  });
  const missing = STRUCTURE_SECTIONS.filter((section) => !markdown.includes(section));
  checks.push({
    test_case_id: "lint:structure",
    label: "SKILL.md has every section",
    result: missing.length === 0 ? "passed" : "failed",
    details: missing.length === 0 ? "all sections present" : `missing: ${missing.join(", ")}`,
  });
  const lint = lintCheckpoints(checkpoints);
  checks.push({
    test_case_id: "lint:checkpoints",
    label: "Checkpoints pass the checkpoint lint (CKP-001…005)",
    result: lint.passed ? "passed" : "failed",
    details: lint.passed
      ? `${lint.checked} checkpoints clean`
      : lint.findings
          .map((finding) => `${finding.rule} ${finding.checkpoint_id}: ${finding.message}`)
          .join("; ")
          .slice(0, 1000),
  });
  const nameTaken = installed.find((entry) => entry.skill_slug === slug);
  checks.push({
    test_case_id: "collision:name",
    label: "No installed ability has the same name",
    result: nameTaken === undefined ? "passed" : "failed",
    details: nameTaken === undefined ? "name is free" : `"${slug}" is already installed (${nameTaken.ability_id})`,
  });
  const ours = new Set(triggers.map((phrase) => phrase.toLowerCase()));
  const shared = installed.flatMap((entry) =>
    entry.trigger_phrases.filter((phrase) => ours.has(phrase.toLowerCase())).map((phrase) => `${phrase} (${entry.ability_id})`),
  );
  checks.push({
    test_case_id: "collision:triggers",
    label: "No trigger phrase is already used by an installed ability",
    result: shared.length === 0 ? "passed" : "failed",
    details: shared.length === 0 ? "no shared trigger phrases" : `shared: ${shared.join(", ")}`.slice(0, 1000),
  });
  return checks;
}

export async function triggerChecks(
  deps: Pick<ValidationServiceDeps, "abilities">,
  tests: TriggerTests,
  title: string,
  triggers: string[],
  negatives: string[],
): Promise<Check[]> {
  const entry: AbilityAvailabilityEntry = {
    ability_id: "candidate",
    title,
    family: "learned",
    source: "learned",
    install_lane: "experimental_private",
    enabled: true,
    usable_now: true,
    trigger_phrases: triggers,
    negative_triggers: negatives,
    aliases: [],
    project_scopes: [],
    preferred_control_surfaces: [],
    support_pack_refs: [],
    schema_version: 1,
  };
  // What lookup does (issue #15: wording and meaning), on this skill alone.
  const verdictOf = await deps.abilities.lookups.verdictsFor(entry);
  const check = async (kind: string, phrase: string, index: number, shouldMatch: boolean): Promise<Check> => {
    const verdict = await verdictOf(phrase);
    return {
      test_case_id: `trigger:${kind}-${index + 1}`,
      label: `${shouldMatch ? "Finds" : "Does not find"} it for "${phrase}"`.slice(0, 240),
      result: verdict.matched === shouldMatch ? "passed" : "failed",
      details: [...verdict.reasons, ...verdict.rejections].join("; ").slice(0, 1000),
    };
  };
  return Promise.all([
    ...tests.positive.map((phrase, index) => check("positive", phrase, index, true)),
    ...tests.paraphrases.map((phrase, index) => check("paraphrase", phrase, index, true)),
    ...tests.negative.map((phrase, index) => check("negative", phrase, index, false)),
  ]);
}

export function defaultPolicy(flow: RecorderFlow): TestPolicy {
  const firstUrl = flow.steps.find((step): step is Extract<RecorderFlow["steps"][number], { type: "navigate" }> => step.type === "navigate")?.url;
  const host = firstUrl === undefined ? undefined : new URL(firstUrl).hostname;
  return TestPolicySchema.parse({ policy_id: randomUUID(), mode: "dry_run_only", allowed_domains: host === undefined ? [] : [host], schema_version: 1 });
}

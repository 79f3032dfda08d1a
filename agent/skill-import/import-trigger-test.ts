import type { AbilityAvailabilityEntry } from "../../shared/abilities/availability";
import type { PortableSkillFrontmatter } from "../../shared/skills/frontmatter";
import type { SkillTriggerTestRequest, SkillTriggerTestResponse } from "../../shared/skills/import";
import { AppError } from "../errors/app-error";
import type { ImportDecisionDeps } from "./import-decisions";

/** §0C.20 trigger test: would lookup pick this import (or installed ability) for this text? */

const words = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length > 2),
  );

/** The availability entry an import would have once installed: what the trigger test looks up. */
function candidateEntry(abilityId: string, frontmatter: PortableSkillFrontmatter): AbilityAvailabilityEntry {
  return {
    ability_id: abilityId,
    title: frontmatter.title.slice(0, 200),
    family: "imported",
    source: "imported",
    skill_slug: frontmatter.name,
    install_lane: "experimental_private",
    enabled: true,
    usable_now: true,
    trigger_phrases: frontmatter.triggers.map((trigger) => trigger.slice(0, 120)),
    negative_triggers: frontmatter.negative_triggers.map((trigger) => trigger.slice(0, 120)),
    aliases: [],
    project_scopes: [],
    preferred_control_surfaces: frontmatter.preferred_control_surfaces,
    support_pack_refs: [],
    schema_version: 1,
  };
}

/** The skill under test: the import's scanned frontmatter, or an installed ability. */
async function candidateOf(
  deps: ImportDecisionDeps,
  request: SkillTriggerTestRequest,
  abilities: AbilityAvailabilityEntry[],
): Promise<AbilityAvailabilityEntry> {
  if (request.import_id !== undefined) {
    const entry = await deps.flow.caseOf(request.import_id);
    if (entry.frontmatter === undefined) throw new AppError("INVALID_SKILL_IMPORT_TRANSITION", "This import has no scanned skill to test yet; scan it first.");
    return candidateEntry(`imported.${entry.frontmatter.name}`, entry.frontmatter);
  }
  const found = abilities.find((ability) => ability.ability_id === request.ability_id);
  if (found === undefined) throw new AppError("ABILITY_NOT_FOUND", "No installed ability with this id.");
  return found;
}

/** Up to five triggers sharing words with the text, most shared first. */
function reasonsOf(candidate: AbilityAvailabilityEntry, text: string): string[] {
  const asked = words(text);
  return candidate.trigger_phrases
    .map((trigger) => ({ trigger, shared: [...words(trigger)].filter((word) => asked.has(word)) }))
    .filter((hit) => hit.shared.length > 0)
    .sort((a, b) => b.shared.length - a.shared.length)
    .slice(0, 5)
    .map((hit) => `shares "${hit.shared.join('", "')}" with the trigger "${hit.trigger}"`.slice(0, 240));
}

export async function triggerTest(deps: ImportDecisionDeps, request: SkillTriggerTestRequest): Promise<SkillTriggerTestResponse> {
  const { snapshot } = await deps.abilities.snapshot();
  const candidate = await candidateOf(deps, request, snapshot.abilities);
  const matches = await deps.abilities.lookupWith(candidate, {
    user_query: request.trigger_text.slice(0, 500),
    install_lanes_allowed: ["experimental_private", "approved_workspace", "shared_promoted"],
    include_private_owned_by_user: true,
    ...(request.project_id === undefined ? {} : { project_id: request.project_id.slice(0, 120) }),
    schema_version: 1,
  });
  const mine = matches.find((match) => match.ability_id === candidate.ability_id);
  const top = matches[0];
  const matched = mine !== undefined && top?.ability_id === candidate.ability_id && mine.score > 0;
  const reasons = reasonsOf(candidate, request.trigger_text);
  const rejection: string[] = [];
  if (mine === undefined) rejection.push("no trigger, title or family word of this skill is in the text");
  else if (!matched && top !== undefined)
    rejection.push(`"${(snapshot.abilities.find((ability) => ability.ability_id === top.ability_id)?.title ?? top.ability_id).slice(0, 120)}" ranks above it`);
  if (candidate.negative_triggers.some((negative) => request.trigger_text.toLowerCase().includes(negative.toLowerCase())))
    rejection.push("the text contains one of its negative triggers");
  const receiptId = await deps.store.receipt("skill.import.trigger_tested", {
    ...(request.import_id === undefined ? {} : { import_id: request.import_id }),
    ability_id: candidate.ability_id,
    details: { matched, score: mine?.score ?? 0 },
  });
  return {
    matched,
    ...(request.import_id === undefined ? { candidate_ability_id: candidate.ability_id } : { candidate_import_id: request.import_id }),
    ...(mine === undefined ? {} : { score: Math.min(1, Math.max(0, mine.score)) }),
    reasons,
    rejection_reasons: rejection,
    receipt_id: receiptId,
    schema_version: 1,
  };
}

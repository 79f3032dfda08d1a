import type { SkillPackMetadata } from "../../shared/skills/import";

/**
 * §0C.20 `GET /api/skills/packs`: the packs an imported skill can be filed under. A scan suggests
 * one (`suggested_pack_id`); stage accepts only these.
 */
export const SKILL_PACKS: readonly SkillPackMetadata[] = [
  {
    pack_id: "agent-skills",
    title: "Agent Skills bundles",
    description: "Skills in the open Agent Skills format: a folder with SKILL.md (name and description), optionally scripts, references and assets.",
    compatibility_target: "agentskills.io SKILL.md",
    active_build_surface: true,
    schema_version: 1,
  },
  {
    pack_id: "elnor-learned",
    title: "Abilities exported from Ability Learning",
    description: "Bundles this agent projected from a demonstration; they carry their own triggers and checkpoints.",
    compatibility_target: "§0.2C portable SKILL.md",
    active_build_surface: true,
    schema_version: 1,
  },
  {
    pack_id: "openclaw",
    title: "OpenClaw workspace skills",
    description: "Skills taken from an OpenClaw workspace skill folder.",
    compatibility_target: "OpenClaw skills folder",
    active_build_surface: true,
    schema_version: 1,
  },
];

export function isKnownPack(packId: string): boolean {
  return SKILL_PACKS.some((pack) => pack.pack_id === packId);
}

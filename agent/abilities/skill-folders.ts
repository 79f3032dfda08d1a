import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { AbilityAvailabilityEntrySchema, type AbilityAvailabilityEntry } from "../../shared/abilities/availability";
import { normalizeAgentSkillsFrontmatter } from "../../shared/skills/agent-skills-format";
import { readFrontmatterMapping } from "../../shared/skills/frontmatter";
import { deriveNegativeTriggers, deriveTriggers, titleOf } from "./derive-fields";
import { SKILL_MD } from "../../shared/skills/skill-folder";

/**
 * The assistant's own skills (§0B.9 "every skill in Skills"): the Agent Skills folders of the
 * workspace (`$OPENCLAW_WORKSPACE/skills`), of the user (`~/.openclaw/skills`, or
 * `OPENCLAW_SKILLS_DIR`) and any bundled folders (`ELNOR_BUNDLED_SKILLS_DIRS`). Read only: they
 * are listed in Skills and found by lookup, never changed. Skills this agent installed (learned or
 * imported) are left to the registry. A name in an earlier folder hides the same name in a later
 * one, as the assistant itself resolves them (workspace, then user, then bundled).
 */

export interface SkillFolder {
  path: string;
  /** `native`: the assistant's own (workspace or user); `bundled`: shipped with it. */
  kind: "native" | "bundled";
}

export interface FolderSkill {
  name: string;
  folder: string;
  kind: SkillFolder["kind"];
  entry: AbilityAvailabilityEntry;
}

export interface SkillFolderSource {
  /** Every skill in the folders, by precedence; `own` names (installed by this agent) are skipped. */
  scan(own: ReadonlySet<string>): Promise<FolderSkill[]>;
  /** A cheap fingerprint of the folders (names and SKILL.md times), to notice a change. */
  fingerprint(): Promise<string>;
}

const SKILL_MD_MAX_BYTES = 512 * 1024;
const FOLDER_NAME = /^[^.][^/\\]{0,119}$/;

async function skillDirs(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => (entry.isDirectory() || entry.isSymbolicLink()) && FOLDER_NAME.test(entry.name) && !/\.(staging|previous)-[0-9a-f]{8}$/.test(entry.name))
    .map((entry) => entry.name)
    .sort();
}

async function readSkill(folder: SkillFolder, name: string): Promise<FolderSkill | undefined> {
  const file = path.join(folder.path, name, SKILL_MD);
  const info = await stat(file).catch(() => undefined);
  if (info === undefined || !info.isFile()) return undefined;
  const prefix = folder.kind === "bundled" ? "bundled" : "native";
  const base = {
    ability_id: `${prefix}.${name}`,
    family: folder.kind,
    source: "native" as const,
    skill_slug: name.slice(0, 120),
    install_lane: "approved_workspace" as const,
    enabled: true,
    negative_triggers: [],
    aliases: [],
    project_scopes: [],
    preferred_control_surfaces: [],
    support_pack_refs: [],
    schema_version: 1 as const,
  };
  const unusable = (reason: string): FolderSkill => ({
    name,
    folder: folder.path,
    kind: folder.kind,
    entry: AbilityAvailabilityEntrySchema.parse({ ...base, title: name.slice(0, 200), usable_now: false, reason_unusable: reason, trigger_phrases: [] }),
  });
  if (info.size > SKILL_MD_MAX_BYTES) return unusable("SKILL.md is larger than 512 KB");
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return unusable("SKILL.md cannot be read");
  const mapping = readFrontmatterMapping(text);
  if (!mapping.ok) return unusable(mapping.reason.slice(0, 240));
  const front = normalizeAgentSkillsFrontmatter(mapping.value).frontmatter;
  if (front === undefined) return unusable("SKILL.md needs a name and a description");
  const triggers = deriveTriggers(front.name, front.description).map((trigger) => trigger.slice(0, 120));
  const version = declaredVersion(front.metadata);
  return {
    name,
    folder: folder.path,
    kind: folder.kind,
    entry: AbilityAvailabilityEntrySchema.parse({
      ...base,
      title: titleOf(front.name, mapping.body).slice(0, 200),
      usable_now: true,
      trigger_phrases: triggers,
      negative_triggers: deriveNegativeTriggers(front.description).map((trigger) => trigger.slice(0, 120)),
      ...(version === undefined ? {} : { skill_version: version }),
    }),
  };
}

const VERSION = /^v?\d[0-9A-Za-z.+-]{0,30}$/;

/** The version a SKILL.md declares where the Agent Skills format puts it (`metadata.version`); anything else is no version. */
function declaredVersion(metadata: Record<string, unknown> | undefined): string | undefined {
  const raw = metadata?.version;
  const text = typeof raw === "number" ? String(raw) : typeof raw === "string" ? raw.trim() : undefined;
  return text !== undefined && VERSION.test(text) ? text : undefined;
}

export function createSkillFolderSource(folders: readonly SkillFolder[]): SkillFolderSource {
  return {
    async scan(own) {
      const seen = new Set<string>(own);
      const found: FolderSkill[] = [];
      for (const folder of folders) {
        for (const name of await skillDirs(folder.path)) {
          if (seen.has(name)) continue;
          const skill = await readSkill(folder, name);
          if (skill === undefined) continue;
          seen.add(name);
          found.push(skill);
        }
      }
      return found;
    },
    async fingerprint() {
      const parts: string[] = [];
      for (const folder of folders) {
        const names = await skillDirs(folder.path);
        // Issue 32: 64 stats at a time, not one after the other (1,000 skills at start-up).
        for (let from = 0; from < names.length; from += 64) {
          const batch = names.slice(from, from + 64);
          const infos = await Promise.all(batch.map((name) => stat(path.join(folder.path, name, SKILL_MD)).catch(() => undefined)));
          batch.forEach((name, index) => parts.push(`${folder.path}/${name}:${infos[index]?.mtimeMs ?? "-"}:${infos[index]?.size ?? "-"}`));
        }
      }
      return parts.join("\n");
    },
  };
}

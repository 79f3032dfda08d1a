import { createHash } from "node:crypto";
import { z } from "zod";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import type { InstalledAbility } from "./ability-registry";
import { checkpointStatuses } from "./checkpoint-health";
import type { SkillFolderSource } from "./skill-folders";
import { MEMORY_READER_NAMES } from "../memory/memory-readers";

/** The views derived from the registry (§0C.11A–B) that start-up rewrote every time before issue 32. */
const VIEWS = new Set<string>([MemoryPaths.bridgeEntriesCurrent, MemoryPaths.availabilityCurrent, MemoryPaths.catalogCurrent]);

/**
 * Issue 32: what the derived views were last written from at start-up (no spec name). Present only
 * while nothing has written a view since: the first write of a view removes it (`guardViews`).
 */
const VIEWS_STAMP = "system/abilities/views_stamp.json";
const ViewsStampSchema = z.object({ inputs: z.string(), schema_version: z.literal(1) });

/** Bumped when what the views hold for the same inputs changes (an agent upgrade then rewrites them once). */
const VIEWS_FORMAT = 1;

/**
 * The memory store as the ability service writes through it: the first write (or removal) of a
 * derived view removes the stamp before it, so a stop half-way through a lifecycle change or an
 * install never leaves a stamp saying the views match what they were written from.
 */
export function guardViews(memory: MemoryStore): { memory: MemoryStore; stamped: () => void } {
  let stampMayExist = true;
  const guarded = new Proxy(memory, {
    get(target, member, receiver) {
      const value = Reflect.get(target, member, receiver) as unknown;
      if (typeof member !== "string" || MEMORY_READER_NAMES.has(member) || typeof value !== "function") return value;
      return async (relative: unknown, ...rest: unknown[]) => {
        if (stampMayExist && typeof relative === "string" && VIEWS.has(relative)) {
          await target.remove(VIEWS_STAMP).catch(() => undefined);
          stampMayExist = false;
        }
        return (value as (...args: unknown[]) => unknown).call(target, relative, ...rest);
      };
    },
  });
  return { memory: guarded, stamped: () => (stampMayExist = true) };
}

/** What the bridge, the availability snapshot and the catalog are a function of, hashed. */
export async function viewsInputs(
  memory: MemoryStore,
  abilities: readonly InstalledAbility[],
  folders: SkillFolderSource | undefined,
  categoriesOf: ((abilityId: string) => string[]) | undefined,
): Promise<string> {
  const external = folders === undefined ? [] : (await folders.scan(new Set(abilities.map((ability) => ability.skill_name)))).map((skill) => skill.entry);
  const ids = [...abilities.map((ability) => ability.ability_id), ...external.map((entry) => entry.ability_id)];
  const inputs = {
    format: VIEWS_FORMAT,
    abilities,
    // Which skills' files are present (the projected folders are the native skill folder) and the assistant's own skills.
    folders: (await folders?.fingerprint()) ?? "",
    external,
    health: [...(await checkpointStatuses(memory))],
    categories: ids.map((id) => categoriesOf?.(id) ?? []),
  };
  return createHash("sha256").update(JSON.stringify(inputs)).digest("hex");
}

/** Whether the views on disk were written from exactly these inputs (the stamp says so, and each view is there). */
export async function viewsMatch(memory: MemoryStore, inputs: string): Promise<boolean> {
  const stamp = await memory.readJson(VIEWS_STAMP, ViewsStampSchema).catch(() => undefined);
  if (stamp?.inputs !== inputs) return false;
  for (const view of VIEWS) if (!(await memory.exists(view))) return false;
  return true;
}

export async function writeViewsStamp(memory: MemoryStore, inputs: string): Promise<void> {
  await memory.writeJson(VIEWS_STAMP, { inputs, schema_version: 1 });
}

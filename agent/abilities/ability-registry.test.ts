import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openMemoryStore, type MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import { editViewRecords } from "../test-support/log-view-files";
import { makeTempMemoryRoot } from "../test-support/temp-memory";
import { createAbilityRegistry, type AbilityRegistry, type InstalledAbility } from "./ability-registry";

const AT = "2026-12-07T12:00:00.000Z";

function ability(n: number): InstalledAbility {
  return {
    ability_id: `ability-${n}`,
    skill_name: `skill-${n}`,
    capability_id: `capability-${n}`,
    title: `Export report ${n}`,
    family: "reports",
    install_lane: "experimental_private",
    enabled: n % 2 === 0,
    quarantined: false,
    trigger_phrases: [`export report ${n}`],
    negative_triggers: [],
    project_scopes: [],
    preferred_control_surfaces: [],
    support_pack_refs: [],
    source: "learned",
    installed_at: AT,
    updated_at: AT,
  };
}

let root: string;
let cleanup: () => Promise<void>;
let memory: MemoryStore;

beforeEach(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-registry-"));
  memory = await openMemoryStore({ root });
});
afterEach(async () => {
  await memory.close();
  await cleanup();
});

/** What a registry answers, every ability read. */
const answers = (registry: AbilityRegistry) => ({
  all: registry.all(),
  byId: registry.all().map((one) => registry.get(one.ability_id)),
  byName: ["skill-1", "skill-2", "skill-3", "skill-4", "skill-5", "skill-9"].map((name) => registry.bySkillName(name)?.ability_id),
});

/** A registry of five abilities, one renamed and one removed since, whose view is up to date (written by the second open). */
async function registryWithView(): Promise<void> {
  const first = await createAbilityRegistry(memory);
  for (const n of [1, 2, 3, 4, 5]) await first.put(ability(n));
  await first.put({ ...ability(3), skill_name: "skill-9", updated_at: "2026-12-07T12:01:00.000Z" });
  await first.remove("ability-4", AT);
  await createAbilityRegistry(memory);
}

describe("issue 32: the ability registry read through a view whose abilities are parsed when first read", () => {
  it("answers from its view as from the whole log: every ability, by id, and by skill name (renamed and removed ones too)", async () => {
    await registryWithView();
    const fromView = answers(await createAbilityRegistry(memory));
    await memory.remove(MemoryPaths.abilityRegistryCurrent);
    const fromLog = answers(await createAbilityRegistry(memory));
    expect(fromView).toEqual(fromLog);
    expect(fromView.byName).toEqual(["ability-1", "ability-2", undefined, undefined, "ability-5", "ability-3"]);
    expect(fromView.all.map((one) => one.ability_id)).toEqual(["ability-1", "ability-2", "ability-3", "ability-5"]);
  });

  it("starts on a view holding an ability that no longer matches its schema, and refuses that one with MEMORY_RECORD_CORRUPT when it is read", async () => {
    await registryWithView();
    await editViewRecords(path.join(root, MemoryPaths.abilityRegistryCurrent), (id, text) =>
      id === "ability-2" ? JSON.stringify({ ...(JSON.parse(text) as object), install_lane: "nowhere" }) : text,
    );
    const registry = await createAbilityRegistry(memory);
    // The others answer, found by id and by skill name without reading the bad one.
    expect(registry.get("ability-1")?.title).toBe("Export report 1");
    expect(registry.bySkillName("skill-5")?.ability_id).toBe("ability-5");
    expect(() => registry.get("ability-2")).toThrow(expect.objectContaining({ code: "MEMORY_RECORD_CORRUPT" }));
    expect(() => registry.bySkillName("skill-2")).toThrow(expect.objectContaining({ code: "MEMORY_RECORD_CORRUPT" }));
    expect(() => registry.all()).toThrow(expect.objectContaining({ code: "MEMORY_RECORD_CORRUPT" }));
    // A new version of it, once put, replaces it.
    await registry.put(ability(2));
    expect(registry.all()).toHaveLength(4);
  });
});

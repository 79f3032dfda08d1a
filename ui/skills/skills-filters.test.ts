import { render } from "svelte/server";
import { describe, expect, it } from "vitest";
import AbilityItem from "./AbilityItem.svelte";
import { filterAbilities, type Ability } from "./skills-catalog.svelte";

const ability = (id: string, source: Ability["source"], family: string, extra: Partial<Ability> = {}): Ability => ({
  ability_id: id,
  title: id,
  family,
  source,
  install_lane: "approved_workspace",
  enabled: true,
  usable_now: true,
  ...extra,
});

const all = [
  ability("learned.a", "learned", "browser", { install_lane: "experimental_private" }),
  ability("imported.b", "imported", "imported", { enabled: false }),
  ability("native.c", "native", "native"),
  ability("bundled.d", "native", "bundled"),
  ability("learned.e", "learned", "browser", { install_lane: "quarantined" }),
];

describe("the source filters of Skills (§0B.9)", () => {
  it("shows native, imported, learned, bundled, disabled and quarantined skills apart", () => {
    const ids = (filter: Parameters<typeof filterAbilities>[1]) => filterAbilities(all, filter).map((entry) => entry.ability_id);
    expect(ids("all")).toEqual(["learned.a", "imported.b", "native.c", "bundled.d"]);
    expect(ids("native")).toEqual(["native.c"]);
    expect(ids("bundle")).toEqual(["bundled.d"]);
    expect(ids("imported")).toEqual(["imported.b"]);
    expect(ids("learned")).toEqual(["learned.a", "learned.e"]);
    expect(ids("disabled")).toEqual(["imported.b"]);
    expect(ids("quarantined")).toEqual(["learned.e"]);
  });

  it("offers no lifecycle controls on the assistant's own skills, and keeps them on learned and imported ones", () => {
    const props = { lifecycle: true, busy: false, oncommand: () => {}, onimprove: () => {} };
    const native = render(AbilityItem, { props: { ability: all[3] as Ability, ...props } }).body;
    expect(native).toContain("Bundled");
    expect(native).toContain("Read-only");
    expect(native).not.toContain("Deactivate");
    const imported = render(AbilityItem, { props: { ability: all[1] as Ability, ...props } }).body;
    expect(imported).toContain("Activate");
    expect(imported).not.toContain("Read-only");
    expect(imported).not.toContain("Improve This Skill");
    expect(render(AbilityItem, { props: { ability: all[0] as Ability, ...props } }).body).toContain("Improve This Skill");
  });
});

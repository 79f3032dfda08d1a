import { render } from "svelte/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CATEGORY_LIMIT } from "../../shared/common/category";
import CategoryFilter from "./CategoryFilter.svelte";
import CategoryMenu from "./CategoryMenu.svelte";
import { SkillCategoriesState } from "./skill-categories.svelte";
import { startListeningAgent, type ListeningAgent } from "../test-support/listening-agent";

let agent: ListeningAgent;
beforeEach(async () => {
  agent = await startListeningAgent();
});
afterEach(async () => agent.close());

describe("categories in Skills, against a real agent", () => {
  it("files a skill into two categories, filters by either, and takes it out of one", async () => {
    const categories = new SkillCategoriesState(agent.deps());
    await categories.create("Litigation", "#2563eb", "learned.a");
    await categories.create("Daily Tasks", "#6b7280", "learned.a");
    await categories.create("Henderson", "#16a34a");
    expect(categories.categoriesOf("learned.a").map((category) => category.title)).toEqual(["Litigation", "Daily Tasks"]);
    const skills = [{ ability_id: "learned.a" }, { ability_id: "learned.b" }];
    categories.selected = categories.categories[2]?.category_id ?? null;
    expect(categories.filter(skills)).toEqual([]);
    categories.selected = categories.categories[1]?.category_id ?? null;
    expect(categories.filter(skills)).toEqual([{ ability_id: "learned.a" }]);
    await categories.toggle(categories.categories[1]?.category_id as string, "learned.a");
    expect(categories.filter(skills)).toEqual([]);
    expect(categories.categoriesOf("learned.a").map((category) => category.title)).toEqual(["Litigation"]);
    // R11.2-43 from the panel: deleting the selected category removes it and its assignments, and the filter lets all through again.
    categories.selected = categories.categories[0]?.category_id ?? null;
    expect(render(CategoryFilter, { props: { categories } }).body).toContain("Delete category “Litigation”");
    await categories.remove(categories.categories[0]?.category_id as string);
    expect(categories.selected).toBeNull();
    expect(categories.categoriesOf("learned.a")).toEqual([]);
    expect(categories.filter(skills)).toEqual(skills);
  });

  it("category_limit_reached_error_rendered: says CATEGORY_LIMIT_REACHED and offers no new category", async () => {
    for (let index = 0; index < CATEGORY_LIMIT; index++) await agent.call("POST", "/api/categories", { title: `C${index}`, schema_version: 1 });
    const categories = new SkillCategoriesState(agent.deps());
    // Skills draws its list once the first read has ended (no filter appearing above it later).
    expect(categories.loaded).toBe(false);
    await categories.load();
    expect(categories.loaded).toBe(true);
    expect(categories.limitReached).toBe(true);
    const html = render(CategoryMenu, { props: { categories, abilityId: "learned.a", open: true, ontoggle: () => {} } }).body;
    expect(html).toContain("delete one to make another");
    expect(html).not.toContain("+ New Category");
    // Asked anyway (another client made the last one meanwhile): the agent's refusal is shown, nothing is made up locally.
    categories.limitReached = false;
    await categories.create("One too many", "#000000");
    expect(categories.error).toMatch(/CATEGORY_LIMIT_REACHED/);
    expect(categories.limitReached).toBe(true);
    expect(categories.categories).toHaveLength(CATEGORY_LIMIT);
  });
});

import type { Category } from "../../shared/common/category";
import { describeFailure } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";

/** A colour for a new category when the person picks none (§0C.21 default). */
export const DEFAULT_CATEGORY_COLOR = "#6366F1";

/**
 * Categories in Skills (§0C.21): which exist, which skills each holds, the filter, and the
 * "Add to Category…" toggles. Skills are filed as `skill` items by their ability id. After a
 * `CATEGORY_LIMIT_REACHED` no new category is offered until one is deleted (§0C.28
 * `category_limit_reached_error_rendered`: no optimistic local creation).
 */
export class SkillCategoriesState {
  categories = $state.raw<Category[]>([]);
  /** category id → ability ids filed in it. */
  members = $state.raw<ReadonlyMap<string, ReadonlySet<string>>>(new Map());
  /** The category filter of Skills; null shows every category. */
  selected = $state<string | null>(null);
  error = $state<string | null>(null);
  limitReached = $state(false);
  busy = $state(false);
  /** Whether the first read has ended (read or failed): until then Skills does not draw its list. */
  loaded = $state(false);
  readonly #deps: LearnDeps;

  constructor(deps: LearnDeps) {
    this.#deps = deps;
  }

  async load(): Promise<void> {
    try {
      const list = await this.#deps.client.listCategories();
      const entries = await Promise.all(
        list.categories.map(async (category) => {
          const items = await this.#deps.client.categoryItems(category.category_id);
          return [category.category_id, new Set(items.items.filter((item) => item.item_kind === "skill").map((item) => item.item_id))] as const;
        }),
      );
      this.categories = list.categories;
      this.members = new Map(entries);
      this.limitReached = list.categories.length >= list.limit;
      if (this.selected !== null && !this.members.has(this.selected)) this.selected = null;
      this.error = null;
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
    } finally {
      this.loaded = true;
    }
  }

  categoriesOf(abilityId: string): Category[] {
    return this.categories.filter((category) => this.members.get(category.category_id)?.has(abilityId) === true);
  }

  /** The abilities the category filter lets through. */
  filter<T extends { ability_id: string }>(abilities: readonly T[]): T[] {
    if (this.selected === null) return [...abilities];
    const members = this.members.get(this.selected);
    return abilities.filter((ability) => members?.has(ability.ability_id) === true);
  }

  async toggle(categoryId: string, abilityId: string): Promise<void> {
    const inside = this.members.get(categoryId)?.has(abilityId) === true;
    await this.#run(async () => {
      if (inside) await this.#deps.client.removeFromCategory(categoryId, "skill", abilityId);
      else await this.#deps.client.assignToCategory(categoryId, "skill", abilityId);
    });
  }

  /** Creates a category and, when given, files the skill in it. */
  async create(title: string, color: string, abilityId?: string): Promise<void> {
    await this.#run(async () => {
      const created = await this.#deps.client.createCategory({ title, color, schema_version: 1 });
      if (abilityId !== undefined) await this.#deps.client.assignToCategory(created.category.category_id, "skill", abilityId);
    });
  }

  async remove(categoryId: string): Promise<void> {
    await this.#run(() => this.#deps.client.deleteCategory(categoryId).then(() => undefined));
  }

  async #run(work: () => Promise<void>): Promise<void> {
    this.busy = true;
    let failure: string | null = null;
    try {
      await work();
    } catch (error) {
      report(this.#deps, error);
      failure = describeFailure(error);
    } finally {
      this.busy = false;
    }
    // What the agent holds now, whatever happened; a failure is said after the reload.
    await this.load();
    if (failure !== null) this.error = failure;
  }
}

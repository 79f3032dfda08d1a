import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  CATEGORY_LIMIT,
  CategoryAssignmentSchema,
  CategorySchema,
  type Category,
  type CategoryAssignment,
  type CategoryItemKind,
  type CreateCategoryRequest,
  type UpdateCategoryRequest,
} from "../../shared/common/category";
import type { Clock } from "../common/clock";
import { AppError } from "../errors/app-error";
import type { MemoryStore } from "../memory/memory-store";

/** §0C.21 storage: the categories as a current view, assignments as an append-only log. */
export const CategoryPaths = {
  current: "system/categories/categories_current.json",
  assignments: "system/categories/assignments.jsonl",
} as const;

/** A line of the log: an item filed into a category, or taken out of it (removal or a deleted category). */
const AssignmentLineSchema = CategoryAssignmentSchema.extend({ action: z.enum(["assigned", "removed"]) });
type AssignmentLine = z.infer<typeof AssignmentLineSchema>;

const CategoriesCurrentSchema = z.array(CategorySchema);

export interface CategoryService {
  list(): Array<Category & { item_count: number }>;
  create(request: CreateCategoryRequest): Promise<Category>;
  update(categoryId: string, request: UpdateCategoryRequest): Promise<Category>;
  /** Deletes the category and every assignment to it (R11.2-43); answers how many were removed. */
  remove(categoryId: string): Promise<number>;
  assign(categoryId: string, kind: CategoryItemKind, itemId: string): Promise<CategoryAssignment>;
  unassign(categoryId: string, kind: CategoryItemKind, itemId: string): Promise<CategoryAssignment>;
  items(categoryId: string): { category: Category; items: CategoryAssignment[] };
  /** The categories a skill is filed in (its ability id as a `skill` item). */
  categoriesOfSkill(abilityId: string): string[];
}

const key = (kind: string, itemId: string) => `${kind}\u0000${itemId}`;

/** §0C.21 Categories: overlapping groupings (an item may sit in many), colour-coded, limited in number. */
export async function createCategoryService(memory: MemoryStore, clock: Clock): Promise<CategoryService> {
  const now = () => clock.now().toISOString();
  let categories: Category[] = (await memory.readJson(CategoryPaths.current, CategoriesCurrentSchema)) ?? [];
  /** category id → (kind, item) → assignment, folded from the log. */
  const assigned = new Map<string, Map<string, CategoryAssignment>>();
  const apply = (line: AssignmentLine) => {
    const items = assigned.get(line.category_id) ?? new Map<string, CategoryAssignment>();
    const { action, ...assignment } = line;
    if (action === "assigned") items.set(key(line.item_kind, line.item_id), assignment);
    else items.delete(key(line.item_kind, line.item_id));
    assigned.set(line.category_id, items);
  };
  for (const line of await memory.readJsonl(CategoryPaths.assignments, AssignmentLineSchema)) apply(line);

  const find = (categoryId: string): Category => {
    const category = categories.find((candidate) => candidate.category_id === categoryId);
    if (category === undefined) throw new AppError("CATEGORY_NOT_FOUND", "No category with this id.");
    return category;
  };
  const save = async (next: Category[]) => {
    await memory.writeJson(CategoryPaths.current, next);
    categories = next;
  };
  const sameTitle = (title: string, except?: string) =>
    categories.some((category) => category.category_id !== except && category.title.toLowerCase() === title.toLowerCase());

  return {
    list: () => categories.map((category) => ({ ...category, item_count: assigned.get(category.category_id)?.size ?? 0 })),

    async create(request) {
      if (categories.length >= CATEGORY_LIMIT)
        throw new AppError("CATEGORY_LIMIT_REACHED", `You have ${CATEGORY_LIMIT} categories, the most there can be; delete one to make another.`);
      if (sameTitle(request.title)) throw new AppError("REQUEST_INVALID", `A category called "${request.title}" exists already.`);
      const at = now();
      const category = CategorySchema.parse({
        category_id: randomUUID(),
        title: request.title,
        ...(request.color === undefined ? {} : { color: request.color }),
        created_at: at,
        updated_at: at,
        schema_version: 1,
      });
      await save([...categories, category]);
      return category;
    },

    async update(categoryId, request) {
      const category = find(categoryId);
      if (request.title !== undefined && sameTitle(request.title, categoryId))
        throw new AppError("REQUEST_INVALID", `A category called "${request.title}" exists already.`);
      const next: Category = {
        ...category,
        ...(request.title === undefined ? {} : { title: request.title }),
        ...(request.color === undefined ? {} : { color: request.color }),
        updated_at: now(),
      };
      await save(categories.map((candidate) => (candidate.category_id === categoryId ? next : candidate)));
      return next;
    },

    async remove(categoryId) {
      find(categoryId);
      const items = [...(assigned.get(categoryId)?.values() ?? [])];
      const at = now();
      // The assignments go first: a category that outlives its assignments is harmless, the reverse is not.
      const lines: AssignmentLine[] = items.map((item) => ({ ...item, assigned_at: at, action: "removed" }));
      await memory.appendMany(CategoryPaths.assignments, lines);
      lines.forEach(apply);
      await save(categories.filter((category) => category.category_id !== categoryId));
      assigned.delete(categoryId);
      return items.length;
    },

    async assign(categoryId, kind, itemId) {
      find(categoryId);
      const existing = assigned.get(categoryId)?.get(key(kind, itemId));
      if (existing !== undefined) return existing;
      const line: AssignmentLine = { category_id: categoryId, item_kind: kind, item_id: itemId, assigned_at: now(), action: "assigned" };
      await memory.append(CategoryPaths.assignments, line);
      apply(line);
      const { action: _action, ...assignment } = line;
      return assignment;
    },

    async unassign(categoryId, kind, itemId) {
      find(categoryId);
      const existing = assigned.get(categoryId)?.get(key(kind, itemId));
      if (existing === undefined) throw new AppError("CATEGORY_NOT_FOUND", "This item is not in this category.");
      const line: AssignmentLine = { ...existing, assigned_at: now(), action: "removed" };
      await memory.append(CategoryPaths.assignments, line);
      apply(line);
      return existing;
    },

    categoriesOfSkill: (abilityId) =>
      categories.filter((category) => assigned.get(category.category_id)?.has(key("skill", abilityId)) === true).map((category) => category.category_id),

    items(categoryId) {
      const category = find(categoryId);
      return { category, items: [...(assigned.get(categoryId)?.values() ?? [])].sort((a, b) => a.assigned_at.localeCompare(b.assigned_at)) };
    },
  };
}

import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  CATEGORY_LIMIT,
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
import { openCategoryAssignments } from "./category-assignments";

/** §0C.21 storage: the categories as a current view, assignments as an append-only log. */
export const CategoryPaths = {
  current: "system/categories/categories_current.json",
  assignments: "system/categories/assignments.jsonl",
} as const;

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

/** Whether another category (not `except`) has this title, whatever its case. */
function titleTaken(categories: readonly Category[], title: string, except?: string): boolean {
  return categories.some((category) => category.category_id !== except && category.title.toLowerCase() === title.toLowerCase());
}

/** A new category, refused past the limit or under a title in use. */
function newCategory(categories: readonly Category[], request: CreateCategoryRequest, now: () => string): Category {
  if (categories.length >= CATEGORY_LIMIT)
    throw new AppError("CATEGORY_LIMIT_REACHED", `You have ${CATEGORY_LIMIT} categories, the most there can be; delete one to make another.`);
  if (titleTaken(categories, request.title)) throw new AppError("REQUEST_INVALID", `A category called "${request.title}" exists already.`);
  const at = now();
  return CategorySchema.parse({
    category_id: randomUUID(),
    title: request.title,
    ...(request.color === undefined ? {} : { color: request.color }),
    created_at: at,
    updated_at: at,
    schema_version: 1,
  });
}

/** The category with the request's title and colour, refused under a title another one has. */
function updatedCategory(categories: readonly Category[], category: Category, request: UpdateCategoryRequest, now: () => string): Category {
  if (request.title !== undefined && titleTaken(categories, request.title, category.category_id))
    throw new AppError("REQUEST_INVALID", `A category called "${request.title}" exists already.`);
  return {
    ...category,
    ...(request.title === undefined ? {} : { title: request.title }),
    ...(request.color === undefined ? {} : { color: request.color }),
    updated_at: now(),
  };
}

/** §0C.21 Categories: overlapping groupings (an item may sit in many), colour-coded, limited in number. */
export async function createCategoryService(memory: MemoryStore, clock: Clock): Promise<CategoryService> {
  const now = () => clock.now().toISOString();
  let categories: Category[] = (await memory.readJson(CategoryPaths.current, CategoriesCurrentSchema)) ?? [];
  const assigned = await openCategoryAssignments(memory, CategoryPaths.assignments);

  const find = (categoryId: string): Category => {
    const category = categories.find((candidate) => candidate.category_id === categoryId);
    if (category === undefined) throw new AppError("CATEGORY_NOT_FOUND", "No category with this id.");
    return category;
  };
  const save = async (next: Category[]) => {
    await memory.writeJson(CategoryPaths.current, next);
    categories = next;
  };

  return {
    list: () => categories.map((category) => ({ ...category, item_count: assigned.count(category.category_id) })),

    async create(request) {
      const category = newCategory(categories, request, now);
      await save([...categories, category]);
      return category;
    },

    async update(categoryId, request) {
      const next = updatedCategory(categories, find(categoryId), request, now);
      await save(categories.map((candidate) => (candidate.category_id === categoryId ? next : candidate)));
      return next;
    },

    async remove(categoryId) {
      find(categoryId);
      // The assignments go first: a category that outlives its assignments is harmless, the reverse is not.
      const items = await assigned.clear(categoryId, now());
      await save(categories.filter((category) => category.category_id !== categoryId));
      return items.length;
    },

    async assign(categoryId, kind, itemId) {
      find(categoryId);
      const existing = assigned.get(categoryId, kind, itemId);
      if (existing !== undefined) return existing;
      const assignment: CategoryAssignment = { category_id: categoryId, item_kind: kind, item_id: itemId, assigned_at: now() };
      await assigned.add(assignment);
      return assignment;
    },

    async unassign(categoryId, kind, itemId) {
      find(categoryId);
      const existing = assigned.get(categoryId, kind, itemId);
      if (existing === undefined) throw new AppError("CATEGORY_NOT_FOUND", "This item is not in this category.");
      await assigned.remove(existing, now());
      return existing;
    },

    categoriesOfSkill: (abilityId) =>
      categories.filter((category) => assigned.has(category.category_id, "skill", abilityId)).map((category) => category.category_id),

    items(categoryId) {
      const category = find(categoryId);
      return { category, items: assigned.itemsOf(categoryId) };
    },
  };
}

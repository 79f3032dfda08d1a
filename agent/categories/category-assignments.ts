import { z } from "zod";
import { CategoryAssignmentSchema, type CategoryAssignment, type CategoryItemKind } from "../../shared/common/category";
import type { MemoryStore } from "../memory/memory-store";

/** A line of the log: an item filed into a category, or taken out of it (removal or a deleted category). */
const AssignmentLineSchema = CategoryAssignmentSchema.extend({ action: z.enum(["assigned", "removed"]) });
type AssignmentLine = z.infer<typeof AssignmentLineSchema>;

const key = (kind: string, itemId: string) => `${kind}\u0000${itemId}`;

/** Which items sit in which category: the append-only assignments log, folded at start and kept current on each write. */
export interface CategoryAssignments {
  count(categoryId: string): number;
  has(categoryId: string, kind: CategoryItemKind, itemId: string): boolean;
  get(categoryId: string, kind: CategoryItemKind, itemId: string): CategoryAssignment | undefined;
  /** The category's items, oldest assignment first. */
  itemsOf(categoryId: string): CategoryAssignment[];
  add(assignment: CategoryAssignment): Promise<void>;
  remove(assignment: CategoryAssignment, at: string): Promise<void>;
  /** Takes every item out of the category (it is being deleted); answers what was in it. */
  clear(categoryId: string, at: string): Promise<CategoryAssignment[]>;
}

export async function openCategoryAssignments(memory: MemoryStore, path: string): Promise<CategoryAssignments> {
  /** category id → (kind, item) → assignment, folded from the log. */
  const assigned = new Map<string, Map<string, CategoryAssignment>>();
  const apply = (line: AssignmentLine) => {
    const items = assigned.get(line.category_id) ?? new Map<string, CategoryAssignment>();
    const { action, ...assignment } = line;
    if (action === "assigned") items.set(key(line.item_kind, line.item_id), assignment);
    else items.delete(key(line.item_kind, line.item_id));
    assigned.set(line.category_id, items);
  };
  for (const line of await memory.readJsonl(path, AssignmentLineSchema)) apply(line);

  const write = async (lines: AssignmentLine[]) => {
    await memory.appendMany(path, lines);
    lines.forEach(apply);
  };
  return {
    count: (categoryId) => assigned.get(categoryId)?.size ?? 0,
    has: (categoryId, kind, itemId) => assigned.get(categoryId)?.has(key(kind, itemId)) === true,
    get: (categoryId, kind, itemId) => assigned.get(categoryId)?.get(key(kind, itemId)),
    itemsOf: (categoryId) => [...(assigned.get(categoryId)?.values() ?? [])].sort((a, b) => a.assigned_at.localeCompare(b.assigned_at)),
    add: (assignment) => write([{ ...assignment, action: "assigned" }]),
    remove: (assignment, at) => write([{ ...assignment, assigned_at: at, action: "removed" }]),
    async clear(categoryId, at) {
      const items = [...(assigned.get(categoryId)?.values() ?? [])];
      await write(items.map((item) => ({ ...item, assigned_at: at, action: "removed" })));
      assigned.delete(categoryId);
      return items;
    },
  };
}

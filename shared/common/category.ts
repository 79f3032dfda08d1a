import { z } from "zod";

/*
 * §0C.21 Categories: durable, user-defined, overlapping, colour-coded groupings of Skills and
 * other items, used as filters. The schemas are the spec's; the request and response shapes of
 * the seven routes are ours (the spec names the routes only), with §0C.28's normalised remove
 * route `DELETE /api/categories/:categoryId/items/:itemKind/:itemId`.
 */

/** §0C.21 */
export const CategorySchema = z.object({
  category_id: z.string().uuid(),
  title: z.string().max(80),
  color: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/)
    .default("#6366F1"),
  created_at: z.string().datetime(),
  updated_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.21 */
export type Category = z.infer<typeof CategorySchema>;

/** §0C.21 What an item of a category can be. */
export const CategoryItemKindSchema = z.enum(["task_template", "automation", "skill", "bundle", "connector", "proposal", "learned_ability"]);
/** §0C.21 */
export type CategoryItemKind = z.infer<typeof CategoryItemKindSchema>;

/** §0C.21 One item filed in one category (a line of `assignments.jsonl`). */
export const CategoryAssignmentSchema = z.object({
  category_id: z.string().uuid(),
  item_kind: CategoryItemKindSchema,
  item_id: z.string().max(160),
  assigned_at: z.string().datetime(),
});
/** §0C.21 */
export type CategoryAssignment = z.infer<typeof CategoryAssignmentSchema>;

/** How many categories one memory may hold; creating one more answers `CATEGORY_LIMIT_REACHED`. */
export const CATEGORY_LIMIT = 100;

const TitleSchema = z.string().trim().min(1).max(80);
const ColorSchema = z.string().regex(/^#[0-9a-fA-F]{6}$/);

/** Body of `POST /api/categories`. */
export const CreateCategoryRequestSchema = z.object({ title: TitleSchema, color: ColorSchema.optional(), schema_version: z.literal(1) }).strict();
export type CreateCategoryRequest = z.infer<typeof CreateCategoryRequestSchema>;

/** Body of `PUT /api/categories/:categoryId`: a new title, a new colour, or both. */
export const UpdateCategoryRequestSchema = z
  .object({ title: TitleSchema.optional(), color: ColorSchema.optional(), schema_version: z.literal(1) })
  .strict()
  .refine((value) => value.title !== undefined || value.color !== undefined, "Send a title, a color, or both");
export type UpdateCategoryRequest = z.infer<typeof UpdateCategoryRequestSchema>;

/** Body of `POST /api/categories/:categoryId/assign`. */
export const AssignCategoryItemRequestSchema = z
  .object({ item_kind: CategoryItemKindSchema, item_id: z.string().min(1).max(160), schema_version: z.literal(1) })
  .strict();
export type AssignCategoryItemRequest = z.infer<typeof AssignCategoryItemRequestSchema>;

/** `GET /api/categories`: every category, with how many items each holds. */
export const CategoriesListResponseSchema = z.object({
  categories: z.array(CategorySchema.extend({ item_count: z.number().int().min(0) })),
  limit: z.number().int().min(1),
  schema_version: z.literal(1),
});
export type CategoriesListResponse = z.infer<typeof CategoriesListResponseSchema>;

/** One category, after create or update. */
export const CategoryResponseSchema = z.object({ category: CategorySchema, schema_version: z.literal(1) });
export type CategoryResponse = z.infer<typeof CategoryResponseSchema>;

/** `DELETE /api/categories/:categoryId`: the category and every assignment to it are gone (R11.2-43). */
export const DeleteCategoryResponseSchema = z.object({
  deleted: z.boolean(),
  category_id: z.string().uuid(),
  assignments_removed: z.number().int().min(0),
  schema_version: z.literal(1),
});
export type DeleteCategoryResponse = z.infer<typeof DeleteCategoryResponseSchema>;

/** Assign and remove: the assignment as it now stands. */
export const CategoryAssignmentResponseSchema = z.object({ assignment: CategoryAssignmentSchema, assigned: z.boolean(), schema_version: z.literal(1) });
export type CategoryAssignmentResponse = z.infer<typeof CategoryAssignmentResponseSchema>;

/** `GET /api/categories/:categoryId/items`. */
export const CategoryItemsResponseSchema = z.object({ category: CategorySchema, items: z.array(CategoryAssignmentSchema), schema_version: z.literal(1) });
export type CategoryItemsResponse = z.infer<typeof CategoryItemsResponseSchema>;

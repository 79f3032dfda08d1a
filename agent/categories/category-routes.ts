import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  AssignCategoryItemRequestSchema,
  CATEGORY_LIMIT,
  CategoriesListResponseSchema,
  CategoryAssignmentResponseSchema,
  CategoryItemKindSchema,
  CategoryItemsResponseSchema,
  CategoryResponseSchema,
  CreateCategoryRequestSchema,
  DeleteCategoryResponseSchema,
  UpdateCategoryRequestSchema,
} from "../../shared/common/category";
import type { CategoryService } from "./category-service";

export interface CategoryRoutesOptions {
  categories: CategoryService;
  /** Told after every change of assignments (the Skills catalog carries `category_ids`). */
  onChange?: () => Promise<void>;
}

const CategoryParamsSchema = z.object({ categoryId: z.string().max(80) });
const ItemParamsSchema = z.object({ categoryId: z.string().max(80), itemKind: CategoryItemKindSchema, itemId: z.string().min(1).max(160) });

/** §0C.21's seven routes; removing one item is §0C.28's normalised `…/items/:itemKind/:itemId`. */
export const categoryRoutes: FastifyPluginAsyncZod<CategoryRoutesOptions> = async (app, { categories, onChange }) => {
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(run: () => Promise<T>, changes = false): Promise<T> => {
    const next = queue.then(async () => {
      const result = await run();
      if (changes) await onChange?.();
      return result;
    });
    queue = next.catch(() => undefined);
    return next;
  };

  app.get("/api/categories", { schema: { response: { 200: CategoriesListResponseSchema } } }, async () => ({
    categories: categories.list(),
    limit: CATEGORY_LIMIT,
    schema_version: 1 as const,
  }));

  app.post("/api/categories", { schema: { body: CreateCategoryRequestSchema, response: { 201: CategoryResponseSchema } } }, async (request, reply) => {
    const category = await serial(() => categories.create(request.body));
    return reply.status(201).send({ category, schema_version: 1 as const });
  });

  app.put(
    "/api/categories/:categoryId",
    { schema: { params: CategoryParamsSchema, body: UpdateCategoryRequestSchema, response: { 200: CategoryResponseSchema } } },
    async (request) => ({
      category: await serial(() => categories.update(request.params.categoryId, request.body)),
      schema_version: 1 as const,
    }),
  );

  app.delete("/api/categories/:categoryId", { schema: { params: CategoryParamsSchema, response: { 200: DeleteCategoryResponseSchema } } }, async (request) => ({
    deleted: true,
    category_id: request.params.categoryId,
    assignments_removed: await serial(() => categories.remove(request.params.categoryId), true),
    schema_version: 1 as const,
  }));

  app.post(
    "/api/categories/:categoryId/assign",
    { schema: { params: CategoryParamsSchema, body: AssignCategoryItemRequestSchema, response: { 200: CategoryAssignmentResponseSchema } } },
    async (request) => ({
      assignment: await serial(() => categories.assign(request.params.categoryId, request.body.item_kind, request.body.item_id), true),
      assigned: true,
      schema_version: 1 as const,
    }),
  );

  app.delete(
    "/api/categories/:categoryId/items/:itemKind/:itemId",
    { schema: { params: ItemParamsSchema, response: { 200: CategoryAssignmentResponseSchema } } },
    async (request) => ({
      assignment: await serial(() => categories.unassign(request.params.categoryId, request.params.itemKind, request.params.itemId), true),
      assigned: false,
      schema_version: 1 as const,
    }),
  );

  app.get(
    "/api/categories/:categoryId/items",
    { schema: { params: CategoryParamsSchema, response: { 200: CategoryItemsResponseSchema } } },
    async (request) => ({
      ...categories.items(request.params.categoryId),
      schema_version: 1 as const,
    }),
  );
};

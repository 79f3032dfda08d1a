import {
  CategoriesListResponseSchema,
  CategoryAssignmentResponseSchema,
  CategoryItemsResponseSchema,
  CategoryResponseSchema,
  CreateCategoryRequestSchema,
  DeleteCategoryResponseSchema,
  UpdateCategoryRequestSchema,
  type CategoryItemKind,
} from "../../../shared/common/category";
import { requestBody, type AgentTransport, type Input } from "../transport/agent-transport";

const category = (id: string) => `/api/categories/${encodeURIComponent(id)}`;

/** Categories (§0C.21): the list, one category's items, assigning skills to them. */
export function categoryRoutes({ call }: AgentTransport) {
  return {
    listCategories: () => call("GET", "/api/categories", CategoriesListResponseSchema),
    createCategory: (request: Input<typeof CreateCategoryRequestSchema>) =>
      call("POST", "/api/categories", CategoryResponseSchema, requestBody(CreateCategoryRequestSchema, request)),
    updateCategory: (id: string, request: Input<typeof UpdateCategoryRequestSchema>) =>
      call("PUT", category(id), CategoryResponseSchema, requestBody(UpdateCategoryRequestSchema, request)),
    deleteCategory: (id: string) => call("DELETE", category(id), DeleteCategoryResponseSchema),
    categoryItems: (id: string) => call("GET", `${category(id)}/items`, CategoryItemsResponseSchema),
    assignToCategory: (id: string, kind: CategoryItemKind, itemId: string) =>
      call("POST", `${category(id)}/assign`, CategoryAssignmentResponseSchema, { item_kind: kind, item_id: itemId, schema_version: 1 }),
    removeFromCategory: (id: string, kind: CategoryItemKind, itemId: string) =>
      call("DELETE", `${category(id)}/items/${kind}/${encodeURIComponent(itemId)}`, CategoryAssignmentResponseSchema),
  };
}

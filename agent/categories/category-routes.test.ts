import { afterEach, describe, expect, it } from "vitest";
import { CATEGORY_LIMIT } from "../../shared/common/category";
import { diffMemoryTrees, readMemoryTree } from "../test-support/adversarial/memory-tree";
import { MemoryPaths } from "../memory/memory-paths";
import { publicBundle, stageThrough } from "../test-support/skill-bundles";
import { expectError, startTestAgent, type TestAgent } from "../test-support/test-agent";

let agent: TestAgent;
afterEach(async () => agent?.close());

const create = async (title: string, color?: string) => {
  const answer = await agent.call("POST", "/api/categories", { title, ...(color === undefined ? {} : { color }), schema_version: 1 });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.category.category_id as string;
};
const assign = (categoryId: string, itemId: string, kind = "skill") =>
  agent.call("POST", `/api/categories/${categoryId}/assign`, { item_kind: kind, item_id: itemId, schema_version: 1 });
const itemsOf = async (categoryId: string) =>
  ((await agent.call("GET", `/api/categories/${categoryId}/items`)).body.items as Array<{ item_id: string }>).map((item) => item.item_id);

describe("categories (§0C.21)", () => {
  it("R11.2-41: create category → assign skill → query items returns skill", async () => {
    agent = await startTestAgent();
    const litigation = await create("Litigation", "#2563EB");
    expect((await assign(litigation, "learned.export-the-monthly-invoices")).body).toMatchObject({
      assigned: true,
      assignment: { item_kind: "skill", item_id: "learned.export-the-monthly-invoices" },
    });
    expect(await itemsOf(litigation)).toEqual(["learned.export-the-monthly-invoices"]);
    const listed = (await agent.call("GET", "/api/categories")).body;
    expect(listed).toMatchObject({ limit: CATEGORY_LIMIT, categories: [{ title: "Litigation", color: "#2563EB", item_count: 1 }] });
    // Assigning twice is one assignment.
    await assign(litigation, "learned.export-the-monthly-invoices");
    expect(await itemsOf(litigation)).toHaveLength(1);
  });

  it("R11.2-42: a skill belongs to multiple categories simultaneously, and leaves one without leaving the other", async () => {
    agent = await startTestAgent();
    const [litigation, daily] = [await create("Litigation"), await create("Daily Tasks", "#6B7280")];
    await assign(litigation, "imported.pdf-form-filler");
    await assign(daily, "imported.pdf-form-filler");
    expect(await itemsOf(litigation)).toEqual(["imported.pdf-form-filler"]);
    expect(await itemsOf(daily)).toEqual(["imported.pdf-form-filler"]);
    const removed = await agent.call("DELETE", `/api/categories/${litigation}/items/skill/imported.pdf-form-filler`);
    expect(removed.body).toMatchObject({ assigned: false });
    expect(await itemsOf(litigation)).toEqual([]);
    expect(await itemsOf(daily)).toEqual(["imported.pdf-form-filler"]);
    expectError(await agent.call("DELETE", `/api/categories/${litigation}/items/skill/imported.pdf-form-filler`), 404, "CATEGORY_NOT_FOUND");
  });

  it("R11.2-43: delete category removes all assignments, and they stay removed after a restart", async () => {
    agent = await startTestAgent();
    const henderson = await create("Henderson", "#16A34A");
    await assign(henderson, "learned.a");
    await assign(henderson, "learned.b", "proposal");
    const deleted = await agent.call("DELETE", `/api/categories/${henderson}`);
    expect(deleted.body).toMatchObject({ deleted: true, assignments_removed: 2 });
    expectError(await agent.call("GET", `/api/categories/${henderson}/items`), 404, "CATEGORY_NOT_FOUND");
    await agent.restart();
    expect((await agent.call("GET", "/api/categories")).body.categories).toEqual([]);
    // A new category never inherits the old one's items.
    expect(await itemsOf(await create("Henderson"))).toEqual([]);
  });

  it("renames and recolours, and refuses a duplicate title or an empty update", async () => {
    agent = await startTestAgent();
    const id = await create("Drafts");
    await create("Archive");
    expect((await agent.call("PUT", `/api/categories/${id}`, { title: "Reviews", color: "#DC2626", schema_version: 1 })).body.category).toMatchObject({
      title: "Reviews",
      color: "#DC2626",
    });
    expectError(await agent.call("PUT", `/api/categories/${id}`, { title: "archive", schema_version: 1 }), 400, "REQUEST_INVALID");
    expectError(await agent.call("PUT", `/api/categories/${id}`, { schema_version: 1 }), 400, "REQUEST_INVALID");
    expectError(await agent.call("PUT", "/api/categories/8d3f7c55-1b7a-4c8e-9a51-2f0d9b7e4c11", { title: "x", schema_version: 1 }), 404, "CATEGORY_NOT_FOUND");
  });

  it(`answers CATEGORY_LIMIT_REACHED at the ${CATEGORY_LIMIT + 1}st category and changes nothing`, async () => {
    agent = await startTestAgent();
    for (let index = 0; index < CATEGORY_LIMIT; index++) await create(`Category ${index}`);
    const before = readMemoryTree(agent.memory.root);
    expectError(await agent.call("POST", "/api/categories", { title: "One too many", schema_version: 1 }), 409, "CATEGORY_LIMIT_REACHED");
    expect(diffMemoryTrees(before, readMemoryTree(agent.memory.root))).toEqual([]);
  });

  it("keeps the Skills catalog's category_ids in step with the assignments", async () => {
    agent = await startTestAgent();
    await agent.call("POST", "/api/skills/import/install-private", { import_id: await stageThrough(agent, publicBundle()), schema_version: 1 });
    const [forms, daily] = [await create("Forms"), await create("Daily")];
    await assign(forms, "imported.pdf-form-filler");
    await assign(daily, "imported.pdf-form-filler");
    const catalogIds = async () => JSON.parse((await agent.memory.readText(MemoryPaths.catalogCurrent)) ?? "{}").items[0].category_ids as string[];
    expect((await catalogIds()).sort()).toEqual([forms, daily].sort());
    await agent.call("DELETE", `/api/categories/${daily}`);
    expect(await catalogIds()).toEqual([forms]);
  });
});

import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { LearningRuntimeSnapshotSchema } from "../../../../shared/learning/sessions/runtime-snapshot";
import { AppError } from "../../../errors/app-error";
import type { MemoryStore } from "../../../memory/memory-store";
import { MemoryPaths } from "../../../memory/memory-paths";

export interface RuntimeRoutesOptions {
  memory: MemoryStore;
}

/**
 * `GET /api/learn/runtime/current` (§0C.7) answers from `runtime/current.json`, the file the
 * session runtime rewrites on every change. Before any session exists there is no snapshot to
 * give (the schema needs a session id), so the answer is the coded "no session" error.
 */
export const runtimeRoutes: FastifyPluginAsyncZod<RuntimeRoutesOptions> = async (app, { memory }) => {
  app.get("/api/learn/runtime/current", { schema: { response: { 200: LearningRuntimeSnapshotSchema } } }, async () => {
    const snapshot = await memory.readJson(MemoryPaths.runtimeCurrent, LearningRuntimeSnapshotSchema);
    if (snapshot === undefined) {
      throw new AppError("LEARN_SESSION_NOT_FOUND", "No learning session has been created yet.");
    }
    return snapshot;
  });
};

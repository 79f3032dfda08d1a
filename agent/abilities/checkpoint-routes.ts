import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  CheckpointVerificationReceiptSchema,
  VerifyCheckpointRequestSchema,
  VerifyCheckpointResponseSchema,
} from "../../shared/learning/checkpoints/checkpoint-receipt";
import { LearnCheckpointReceiptsResponseSchema } from "../../shared/learning/read-models";
import { PaginationQuerySchema } from "../../shared/learning/route-contracts";
import type { Clock } from "../common/clock";
import { AppError } from "../errors/app-error";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import type { AbilityService } from "./ability-service";
import type { InstallingSessions } from "./learning-ports";
import { appendCheckpointReceipt, recordUsedLater } from "./checkpoint-receipts";

export interface CheckpointRoutesOptions {
  memory: MemoryStore;
  sessions: Pick<InstallingSessions, "get">;
  abilities: AbilityService;
  clock: Clock;
}

const DispatchParamsSchema = z.object({ dispatchId: z.string().regex(/^[A-Za-z0-9._:-]{1,200}$/) });

/**
 * §0C.9B / §0C.16 bridge tool: checkpoint receipts in, per dispatch out. A receipt about an
 * installed ability is a capability-health trigger (§0C.11B), so the availability snapshot is
 * refreshed and the ability's `checkpoint_health` follows its receipts.
 */
export const checkpointRoutes: FastifyPluginAsyncZod<CheckpointRoutesOptions> = async (app, { memory, sessions, abilities, clock }) => {
  app.post(
    "/api/bridge/verify-checkpoint",
    { schema: { body: VerifyCheckpointRequestSchema, response: { 200: VerifyCheckpointResponseSchema } } },
    async (request) => {
      const body = request.body;
      if (body.learn_session_id !== undefined) sessions.get(body.learn_session_id);
      if (body.ability_id !== undefined && !(await abilities.snapshot()).snapshot.abilities.some((entry) => entry.ability_id === body.ability_id)) {
        throw new AppError("ABILITY_NOT_FOUND", `No ability ${body.ability_id}.`);
      }
      const { schema_version: _version, ...fields } = body;
      const receipt = await appendCheckpointReceipt(memory, fields, clock.now().toISOString());
      if (body.dispatch_id !== undefined && body.ability_id !== undefined) await recordUsedLater(memory, body.ability_id, body.dispatch_id, receipt.created_at);
      if (body.ability_id !== undefined) await abilities.refreshAvailability();
      return { receipt };
    },
  );

  app.get(
    "/api/dispatches/:dispatchId/checkpoint-receipts",
    { schema: { params: DispatchParamsSchema, querystring: PaginationQuerySchema, response: { 200: LearnCheckpointReceiptsResponseSchema } } },
    async (request) => {
      const receipts = (await memory.readJsonl(MemoryPaths.checkpointReceipts, CheckpointVerificationReceiptSchema))
        .filter((receipt) => receipt.dispatch_id === request.params.dispatchId)
        .reverse();
      const { page, page_size } = request.query;
      return { receipts: receipts.slice((page - 1) * page_size, page * page_size), total: receipts.length, page, page_size, schema_version: 1 as const };
    },
  );
};

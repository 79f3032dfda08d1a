import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { CheckpointVerificationReceiptSchema } from "../../../../shared/learning/checkpoints/checkpoint-receipt";
import { LearnSessionSchema, type LearnSession } from "../../../../shared/learning/sessions/learn-session";
import { LearnCheckpointReceiptsResponseSchema } from "../../../../shared/learning/read-models";
import { LearningReceiptSchema } from "../../../../shared/learning/sessions/receipts";
import {
  LearnHistoryResponseSchema,
  LearnReceiptsResponseSchema,
  PaginationQuerySchema,
  type LearnHistoryResponse,
} from "../../../../shared/learning/route-contracts";
import type { MemoryStore } from "../../../memory/memory-store";
import { MemoryPaths } from "../../../memory/memory-paths";
import type { SessionService } from "../session-service";

export interface HistoryRoutesOptions {
  sessions: SessionService;
  memory: MemoryStore;
}

const SessionParamsSchema = z.object({ sessionId: z.string().uuid() });
const ReceiptsQuerySchema = PaginationQuerySchema.extend({ session_id: z.string().uuid().optional() });
const ArchivedSessionSchema = z.object({ session: LearnSessionSchema }).passthrough();

type HistoryItem = LearnHistoryResponse["items"][number];

const OUTCOME: Partial<Record<LearnSession["state"], NonNullable<HistoryItem["outcome"]>>> = {
  approved: "approved",
  rejected: "rejected",
  cancelled: "cancelled",
  quarantined: "quarantined",
};

function historyItem(session: LearnSession): HistoryItem {
  const outcome = OUTCOME[session.state] ?? "in_progress";
  return {
    learn_session_id: session.learn_session_id,
    entry_mode: session.entry_mode,
    state: session.state,
    created_at: session.created_at,
    ...(outcome === "in_progress" ? {} : { completed_at: session.updated_at }),
    ...(session.proposal_id === undefined ? {} : { proposal_id: session.proposal_id }),
    ...(session.ability_id === undefined ? {} : { ability_id: session.ability_id }),
    outcome,
  };
}

function page<T>(items: T[], pageNumber: number, pageSize: number): T[] {
  return items.slice((pageNumber - 1) * pageSize, pageNumber * pageSize);
}

/** §0C.16 learning history and receipts, and §0C.9B's per-session checkpoint receipts, newest first. */
export const historyRoutes: FastifyPluginAsyncZod<HistoryRoutesOptions> = async (app, { sessions, memory }) => {
  app.get("/api/learn/history", { schema: { querystring: PaginationQuerySchema, response: { 200: LearnHistoryResponseSchema } } }, async (request) => {
    const archived: LearnSession[] = [];
    for (const file of await memory.list(MemoryPaths.archivedSessions)) {
      const record = await memory.readJson(`${MemoryPaths.archivedSessions}/${file}`, ArchivedSessionSchema);
      if (record !== undefined) archived.push(record.session);
    }
    const items = [...sessions.all(), ...archived].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0)).map(historyItem);
    const { page: pageNumber, page_size } = request.query;
    return { items: page(items, pageNumber, page_size), total: items.length, page: pageNumber, page_size };
  });

  app.get("/api/learn/receipts", { schema: { querystring: ReceiptsQuerySchema, response: { 200: LearnReceiptsResponseSchema } } }, async (request) => {
    const { page: pageNumber, page_size, session_id } = request.query;
    const receipts = (await memory.readJsonl(MemoryPaths.receipts, LearningReceiptSchema))
      .filter((receipt) => session_id === undefined || receipt.learn_session_id === session_id)
      .reverse();
    return { receipts: page(receipts, pageNumber, page_size), total: receipts.length, page: pageNumber, page_size };
  });

  app.get(
    "/api/learn/sessions/:sessionId/checkpoint-receipts",
    {
      schema: {
        params: SessionParamsSchema,
        querystring: PaginationQuerySchema,
        response: { 200: LearnCheckpointReceiptsResponseSchema },
      },
    },
    async (request) => {
      sessions.get(request.params.sessionId);
      const { page: pageNumber, page_size } = request.query;
      const receipts = (await memory.readJsonl(MemoryPaths.checkpointReceipts, CheckpointVerificationReceiptSchema))
        .filter((receipt) => receipt.learn_session_id === request.params.sessionId)
        .reverse();
      return {
        receipts: page(receipts, pageNumber, page_size),
        total: receipts.length,
        page: pageNumber,
        page_size,
        schema_version: 1 as const,
      };
    },
  );
};

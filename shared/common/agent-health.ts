import { z } from "zod";

/**
 * `GET /api/health` — the one unauthenticated route. It says only that an agent is listening and
 * which contract version it speaks, so an unpaired side panel can tell "agent down" from
 * "token rejected" without learning anything about the machine.
 */
export const AgentHealthResponseSchema = z.object({
  status: z.literal("ok"),
  service: z.literal("elnor-learn-agent"),
  version: z.string().max(40),
  schema_version: z.literal(1),
});
export type AgentHealthResponse = z.infer<typeof AgentHealthResponseSchema>;

import { createAgentTransport, type AgentClientOptions } from "./transport/agent-transport";
import { abilityRoutes } from "./agent-routes/abilities";
import { agentRoutes } from "./agent-routes/agent";
import { categoryRoutes } from "./agent-routes/categories";
import { coachingRoutes } from "./agent-routes/coaching";
import { historyRoutes } from "./agent-routes/history";
import { proposalRoutes } from "./agent-routes/proposals";
import { runRoutes } from "./agent-routes/runs";
import { scheduleRoutes } from "./agent-routes/schedules";
import { sessionCaptureRoutes } from "./agent-routes/session-capture";
import { sessionRoutes } from "./agent-routes/sessions";
import { skillImportRoutes } from "./agent-routes/skill-import";

/**
 * The one typed client the side panel uses to talk to the agent (DESIGN §3): one transport
 * (agent-transport.ts; failures in agent-failure.ts) and the routes, grouped as the agent's are.
 */
export function createAgentClient(options: AgentClientOptions) {
  const transport = createAgentTransport(options);
  return {
    ...agentRoutes(transport),
    ...sessionRoutes(transport),
    ...sessionCaptureRoutes(transport),
    ...historyRoutes(transport),
    ...coachingRoutes(transport),
    ...proposalRoutes(transport),
    ...abilityRoutes(transport),
    ...runRoutes(transport),
    ...scheduleRoutes(transport),
    ...skillImportRoutes(transport),
    ...categoryRoutes(transport),
  };
}

export type AgentClient = ReturnType<typeof createAgentClient>;

import { z } from "zod";
import { AgentHealthResponseSchema } from "../../../shared/common/agent-health";
import { PairingResponseSchema } from "../../../shared/common/pairing";
import { ObservationAdaptersResponseSchema } from "../../../shared/learning/sessions/session-requests";
import { LearningRuntimeSnapshotSchema } from "../../../shared/learning/sessions/runtime-snapshot";
import type { AgentTransport } from "../transport/agent-transport";

/** Only the part of an OpenAPI document the panel reads (ui/common/agent-features parses the rest). */
const OpenApiDocumentSchema = z.object({ paths: z.record(z.string(), z.unknown()) }).passthrough();

/** The agent itself: reachable, paired, what routes it has, what it is doing now. */
export function agentRoutes({ call }: AgentTransport) {
  return {
    health: () => call("GET", "/api/health", AgentHealthResponseSchema),
    pair: (extensionId: string) => call("POST", "/api/pairing", PairingResponseSchema, { extension_id: extensionId, schema_version: 1 }),
    pairingStatus: () => call("GET", "/api/pairing", PairingResponseSchema),
    runtimeCurrent: () => call("GET", "/api/learn/runtime/current", LearningRuntimeSnapshotSchema),
    /** §0C.22 which observation adapters have reported in, and which are healthy now. */
    observationAdapters: () => call("GET", "/api/observation/adapters", ObservationAdaptersResponseSchema),
    /** The agent's own description of its routes (which features it has, ui/common/agent-features). */
    openApi: () => call("GET", "/api/openapi.json", OpenApiDocumentSchema, undefined, 15_000),
  };
}

import { z } from "zod";

/**
 * The agent is only ever on this machine: the extension's permanent host permissions cover
 * 127.0.0.1 and localhost, nothing else, so an address elsewhere is refused before any request.
 */
export const AgentUrlSchema = z
  .string()
  .trim()
  .regex(/^http:\/\/(127\.0\.0\.1|localhost):\d{1,5}\/?$/, "Use the address the agent printed, like http://127.0.0.1:47630")
  .transform((url) => url.replace(/\/$/, ""));

/**
 * The pairing both halves of the extension share: the side panel writes it after pairing, the
 * service worker reads it to open its socket and call session routes (STYLE habit 12).
 */
export const AgentConnectionSchema = z.object({
  agent_url: AgentUrlSchema,
  token: z.string().min(20).max(512),
  paired_at: z.string().datetime(),
});
export type AgentConnection = z.infer<typeof AgentConnectionSchema>;

/** Where the connection lives: `extension/connection-storage.ts` keeps it in the extension's local storage. */
export interface ConnectionStorage {
  load(): Promise<AgentConnection | null>;
  save(connection: AgentConnection): Promise<void>;
  clear(): Promise<void>;
}

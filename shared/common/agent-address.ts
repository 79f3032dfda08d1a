import { z } from "zod";

/**
 * Where the local agent is found, named once for every part that talks to it (the agent itself,
 * the MCP server, the reference adapters, the side panel's default). The agent only ever listens
 * on this machine.
 */
export const DEFAULT_AGENT_PORT = 47630;

/** The agent's address on a port of this machine. */
export function agentUrlOnPort(port: number): string {
  return `http://127.0.0.1:${port}`;
}

export const DEFAULT_AGENT_URL = agentUrlOnPort(DEFAULT_AGENT_PORT);

const AgentPortSchema = z.coerce.number().int().min(0).max(65535);

/** ELNOR_AGENT_PORT, else the default; 0 lets the system pick a free port (tests). Throws on anything else. */
export function parseAgentPort(value: string | undefined): number {
  return value === undefined || value === "" ? DEFAULT_AGENT_PORT : AgentPortSchema.parse(value);
}

/** ELNOR_MEMORY's default, relative to the user's home folder. */
export const DEFAULT_MEMORY_UNDER_HOME = ".elnor/memory";

/** The pairing token (mode 0600), relative to ELNOR_MEMORY: the one file a client of the agent reads. */
export const AGENT_TOKEN_PATH = "system/agent/token";

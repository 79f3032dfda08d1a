import { AgentRequestError, createAgentClient } from "./agent-client";
import { AgentConnectionSchema, AgentUrlSchema, type ConnectionStorage } from "./agent-connection";
import { statusFromFailure, type AgentStatus } from "./agent-status";

export interface AgentStatusDeps {
  storage: ConnectionStorage;
  extensionId: string;
  fetch?: typeof fetch;
  now?: () => Date;
}

/** The side panel's view of its agent: pairing and the connection check, as runes state. */
export class AgentStatusState {
  status = $state<AgentStatus>({ kind: "checking" });
  busy = $state(false);
  formError = $state<string | null>(null);
  readonly #deps: AgentStatusDeps;

  constructor(deps: AgentStatusDeps) {
    this.#deps = deps;
  }

  async refresh(): Promise<void> {
    this.busy = true;
    try {
      const connection = await this.#deps.storage.load();
      if (connection === null) {
        this.status = { kind: "unpaired" };
        return;
      }
      const client = createAgentClient({ baseUrl: connection.agent_url, token: connection.token, fetch: this.#deps.fetch });
      try {
        const pairing = await client.pairingStatus();
        this.status =
          pairing.extension_id === this.#deps.extensionId
            ? { kind: "connected", agentUrl: connection.agent_url }
            : { kind: "paired_elsewhere", agentUrl: connection.agent_url };
      } catch (error) {
        if (!(error instanceof AgentRequestError)) throw error;
        this.status = statusFromFailure(error.failure, connection.agent_url);
      }
    } finally {
      this.busy = false;
    }
  }

  async pair(agentUrlInput: string, tokenInput: string): Promise<void> {
    this.formError = null;
    const agentUrl = AgentUrlSchema.safeParse(agentUrlInput);
    if (!agentUrl.success) {
      this.formError = agentUrl.error.issues[0]?.message ?? "That agent address is not valid.";
      return;
    }
    const token = tokenInput.trim();
    if (token.length < 20) {
      this.formError = "Paste the whole token the agent printed.";
      return;
    }
    this.busy = true;
    try {
      const client = createAgentClient({ baseUrl: agentUrl.data, token, fetch: this.#deps.fetch });
      try {
        await client.health();
        const pairing = await client.pair(this.#deps.extensionId);
        const connection = AgentConnectionSchema.parse({ agent_url: agentUrl.data, token, paired_at: pairing.paired_at });
        await this.#deps.storage.save(connection);
        this.status = { kind: "connected", agentUrl: agentUrl.data };
      } catch (error) {
        if (!(error instanceof AgentRequestError)) throw error;
        this.status = statusFromFailure(error.failure, agentUrl.data);
      }
    } finally {
      this.busy = false;
    }
  }

  async forget(): Promise<void> {
    await this.#deps.storage.clear();
    this.status = { kind: "unpaired" };
  }
}

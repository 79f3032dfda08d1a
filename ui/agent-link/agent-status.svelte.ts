import { createAgentClient, type AgentClient } from "./agent-client";
import { AgentRequestError, type AgentFailure } from "./transport/agent-failure";
import { AgentConnectionSchema, AgentUrlSchema, type AgentConnection, type ConnectionStorage } from "../../shared/common/agent-connection";
import { statusFromFailure, type AgentStatus } from "./agent-status";

export interface AgentStatusDeps {
  storage: ConnectionStorage;
  extensionId: string;
  fetch?: typeof fetch;
  now?: () => Date;
  /** How often to check again while a paired agent is unreachable (default 5 s). */
  recheckMs?: number;
}

/** The side panel's view of its agent: pairing and the connection check, as runes state. */
export class AgentStatusState {
  status = $state<AgentStatus>({ kind: "checking" });
  busy = $state(false);
  formError = $state<string | null>(null);
  /**
   * The client for the paired agent, kept while it is merely unreachable (the Learn page stays on
   * screen and says so) and dropped when the pairing itself is gone or refused.
   */
  client = $state.raw<AgentClient | null>(null);
  readonly #deps: AgentStatusDeps;
  #connection: AgentConnection | null = null;
  #recheck: ReturnType<typeof setInterval> | undefined;

  constructor(deps: AgentStatusDeps) {
    this.#deps = deps;
  }

  #useConnection(connection: AgentConnection | null): void {
    const same =
      connection !== null && this.#connection !== null && connection.agent_url === this.#connection.agent_url && connection.token === this.#connection.token;
    if (same && this.client !== null) return;
    this.#connection = connection;
    this.client = connection === null ? null : createAgentClient({ baseUrl: connection.agent_url, token: connection.token, fetch: this.#deps.fetch });
  }

  #setStatus(status: AgentStatus): void {
    this.status = status;
    const keepClient = status.kind === "connected" || status.kind === "unreachable";
    if (!keepClient) this.#useConnection(null);
    if (status.kind === "unreachable" && this.client !== null) {
      this.#recheck ??= setInterval(() => {
        if (!this.busy) void this.refresh();
      }, this.#deps.recheckMs ?? 5000);
    } else {
      this.#stopRecheck();
    }
  }

  #stopRecheck(): void {
    if (this.#recheck !== undefined) clearInterval(this.#recheck);
    this.#recheck = undefined;
  }

  async refresh(): Promise<void> {
    this.busy = true;
    try {
      const connection = await this.#deps.storage.load();
      if (connection === null) {
        this.#setStatus({ kind: "unpaired" });
        return;
      }
      const client = createAgentClient({ baseUrl: connection.agent_url, token: connection.token, fetch: this.#deps.fetch });
      try {
        const pairing = await client.pairingStatus();
        if (pairing.extension_id === this.#deps.extensionId) {
          this.#useConnection(connection);
          this.#setStatus({ kind: "connected", agentUrl: connection.agent_url });
        } else {
          this.#setStatus({ kind: "paired_elsewhere", agentUrl: connection.agent_url });
        }
      } catch (error) {
        if (!(error instanceof AgentRequestError)) throw error;
        this.#setStatus(statusFromFailure(error.failure, connection.agent_url));
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
        this.#useConnection(connection);
        this.#setStatus({ kind: "connected", agentUrl: agentUrl.data });
      } catch (error) {
        if (!(error instanceof AgentRequestError)) throw error;
        this.#setStatus(statusFromFailure(error.failure, agentUrl.data));
      }
    } finally {
      this.busy = false;
    }
  }

  /**
   * A Learn call failed: when the failure is about the agent itself (gone, token refused, paired
   * with another extension), the status bar says so. Other failures are the caller's to show.
   */
  noteFailure(failure: AgentFailure): void {
    if (this.status.kind !== "connected" || this.#connection === null) return;
    const next = statusFromFailure(failure, this.#connection.agent_url);
    if (next.kind === "unreachable" || next.kind === "token_rejected" || next.kind === "paired_elsewhere") this.#setStatus(next);
  }

  async forget(): Promise<void> {
    await this.#deps.storage.clear();
    this.#setStatus({ kind: "unpaired" });
  }

  destroy(): void {
    this.#stopRecheck();
  }
}

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentConnection, ConnectionStorage } from "../../shared/common/agent-connection";
import { describeAgentStatus, statusFromFailure } from "./agent-status";
import { AgentStatusState } from "./agent-status.svelte";
import { startListeningAgent, type ListeningAgent } from "../test-support/listening-agent";

const EXTENSION_ID = "abcdefghijklmnopabcdefghijklmnop";

function memoryStorage(): ConnectionStorage & { saved: AgentConnection | null } {
  const storage = {
    saved: null as AgentConnection | null,
    load: async () => storage.saved,
    save: async (connection: AgentConnection) => {
      storage.saved = connection;
    },
    clear: async () => {
      storage.saved = null;
    },
  };
  return storage;
}

describe("statusFromFailure", () => {
  it("maps the agent's coded answers to what the panel says", () => {
    expect(statusFromFailure({ kind: "unreachable", message: "" }, "u").kind).toBe("unreachable");
    expect(statusFromFailure({ kind: "api", status: 401, code: "AUTH_INVALID", message: "" }, "u").kind).toBe("token_rejected");
    expect(statusFromFailure({ kind: "api", status: 401, code: "AUTH_REQUIRED", message: "" }, "u").kind).toBe("token_rejected");
    expect(statusFromFailure({ kind: "api", status: 403, code: "ORIGIN_NOT_ALLOWED", message: "" }, "u").kind).toBe("paired_elsewhere");
    expect(statusFromFailure({ kind: "api", status: 503, code: "MEMORY_LOCKED", message: "busy" }, "u")).toEqual({
      kind: "failed",
      agentUrl: "u",
      code: "MEMORY_LOCKED",
      message: "busy",
    });
  });

  it("gives every status a headline a person can act on", () => {
    expect(describeAgentStatus({ kind: "unreachable", agentUrl: "http://127.0.0.1:1" }).detail).toContain("npm start");
    expect(describeAgentStatus({ kind: "token_rejected", agentUrl: "x" }).headline).toBe("Token rejected");
    expect(describeAgentStatus({ kind: "connected", agentUrl: "x" }).headline).toBe("Connected");
  });
});

describe("AgentStatusState against a real agent", () => {
  let agent: ListeningAgent;
  let url: string;
  let token: string;

  beforeEach(async () => {
    agent = await startListeningAgent();
    ({ url, token } = agent);
  });
  afterEach(async () => {
    await agent.close();
  });

  it("starts unpaired, pairs with the right token, saves the connection and reads back connected", async () => {
    const storage = memoryStorage();
    const state = new AgentStatusState({ storage, extensionId: EXTENSION_ID });
    await state.refresh();
    expect(state.status.kind).toBe("unpaired");
    await state.pair(url, token);
    expect(state.status).toEqual({ kind: "connected", agentUrl: url });
    expect(storage.saved?.token).toBe(token);
    const reopened = new AgentStatusState({ storage, extensionId: EXTENSION_ID });
    await reopened.refresh();
    expect(reopened.status.kind).toBe("connected");
  });

  it("reports a wrong token as rejected and saves nothing", async () => {
    const storage = memoryStorage();
    const state = new AgentStatusState({ storage, extensionId: EXTENSION_ID });
    await state.pair(url, "not-the-token-not-the-token-not-the-token");
    expect(state.status.kind).toBe("token_rejected");
    expect(storage.saved).toBeNull();
  });

  it("refuses an agent address that is not on this machine before sending anything", async () => {
    const state = new AgentStatusState({ storage: memoryStorage(), extensionId: EXTENSION_ID });
    await state.pair("http://evil.example:47630", token);
    expect(state.formError).toMatch(/address the agent printed/);
  });

  it("reports an unreachable agent once it stops", async () => {
    const storage = memoryStorage();
    const state = new AgentStatusState({ storage, extensionId: EXTENSION_ID });
    await state.pair(url, token);
    await agent.stop();
    await state.refresh();
    expect(state.status).toEqual({ kind: "unreachable", agentUrl: url });
  });

  it("notices when the agent has been paired with another extension since", async () => {
    const storage = memoryStorage();
    await new AgentStatusState({ storage, extensionId: EXTENSION_ID }).pair(url, token);
    await new AgentStatusState({ storage: memoryStorage(), extensionId: "ponmlkjihgfedcbaponmlkjihgfedcba" }).pair(url, token);
    const state = new AgentStatusState({ storage, extensionId: EXTENSION_ID });
    await state.refresh();
    expect(state.status.kind).toBe("paired_elsewhere");
  });
});

describe("AgentStatusState when Learn calls fail", () => {
  let agent: ListeningAgent;
  let url: string;
  let token: string;

  beforeEach(async () => {
    agent = await startListeningAgent();
    ({ url, token } = agent);
  });
  afterEach(async () => {
    await agent.close();
  });

  it("keeps the Learn page's client while the agent is merely unreachable, and drops it when the token is refused", async () => {
    const state = new AgentStatusState({ storage: memoryStorage(), extensionId: EXTENSION_ID, recheckMs: 60_000 });
    await state.pair(url, token);
    const client = state.client;
    expect(client).not.toBeNull();
    state.noteFailure({ kind: "unreachable", message: "gone" });
    expect(state.status.kind).toBe("unreachable");
    expect(state.client).toBe(client);
    await state.refresh();
    expect(state.status.kind).toBe("connected");
    expect(state.client).toBe(client);
    state.noteFailure({ kind: "api", status: 401, code: "AUTH_INVALID", message: "no" });
    expect(state.status.kind).toBe("token_rejected");
    expect(state.client).toBeNull();
    state.destroy();
  });

  it("ignores failures that are about the request, not the agent", async () => {
    const state = new AgentStatusState({ storage: memoryStorage(), extensionId: EXTENSION_ID });
    await state.pair(url, token);
    state.noteFailure({ kind: "api", status: 409, code: "LEARN_SESSION_ALREADY_ACTIVE", message: "busy" });
    expect(state.status.kind).toBe("connected");
    state.destroy();
  });
});

import { storage } from "wxt/utils/storage";
import { AgentConnectionSchema, type AgentConnection, type ConnectionStorage } from "../shared/common/agent-connection";

/** The pairing, in `chrome.storage.local` (never sync: the token must not leave this browser). */
const agentConnectionItem = storage.defineItem<unknown>("local:agentConnection", { fallback: null, version: 1 });

export const extensionConnectionStorage: ConnectionStorage = {
  async load(): Promise<AgentConnection | null> {
    const stored = await agentConnectionItem.getValue();
    const parsed = AgentConnectionSchema.safeParse(stored);
    return parsed.success ? parsed.data : null;
  },
  save: (connection) => agentConnectionItem.setValue(AgentConnectionSchema.parse(connection)),
  clear: () => agentConnectionItem.removeValue(),
};

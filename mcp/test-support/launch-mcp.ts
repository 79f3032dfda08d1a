import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** The file a user's MCP client runs (README: `node <checkout>/mcp/bin/elnor-learn.mjs mcp`). */
export const MCP_BIN = fileURLToPath(new URL("../bin/elnor-learn.mjs", import.meta.url));

export interface LaunchedMcp {
  client: Client;
  /** Every list_changed notification received so far, by method, in order. */
  notifications: string[];
  stderr(): string;
  /** Resolves once a `notifications/resources/list_changed` beyond the first `seen` has arrived. */
  nextListChanged(seen: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Launches the MCP server as an MCP client does (a child process on stdio) with the SDK's own
 * Client, against the agent at `agentUrl` with the token file of `memoryRoot`.
 */
export async function launchMcp(options: {
  memoryRoot: string;
  agentUrl: string;
  pollMs?: number;
  command?: { command: string; args: string[]; cwd?: string };
}): Promise<LaunchedMcp> {
  const transport = new StdioClientTransport({
    command: options.command?.command ?? process.execPath,
    args: options.command?.args ?? [MCP_BIN, "mcp"],
    ...(options.command?.cwd === undefined ? {} : { cwd: options.command.cwd }),
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      ELNOR_MEMORY: options.memoryRoot,
      ELNOR_AGENT_URL: options.agentUrl,
      ELNOR_MCP_POLL_MS: String(options.pollMs ?? 250),
    },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "elnor-learn-test", version: "0.0.0" });
  const notifications: string[] = [];
  const waiters: Array<() => void> = [];
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    notifications.push("notifications/resources/list_changed");
    for (const wake of waiters.splice(0)) wake();
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    notifications.push("notifications/tools/list_changed");
  });
  await client.connect(transport);
  const resourceChanges = () => notifications.filter((method) => method === "notifications/resources/list_changed").length;
  return {
    client,
    notifications,
    stderr: () => stderr,
    nextListChanged(seen, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        if (resourceChanges() > seen) return resolve();
        const timer = setTimeout(
          () => reject(new Error(`no resources/list_changed within ${timeoutMs} ms (seen ${notifications.join(", ") || "none"})`)),
          timeoutMs,
        );
        const check = () => {
          if (resourceChanges() > seen) {
            clearTimeout(timer);
            resolve();
          } else waiters.push(check);
        };
        waiters.push(check);
      });
    },
    close: () => client.close(),
  };
}

/** A tool result's text (what an assistant reads). */
export function resultText(result: unknown): string {
  const content = (result as CallToolResult).content ?? [];
  return content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

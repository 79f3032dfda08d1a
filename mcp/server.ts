import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createAgentClient, readMcpServerConfig } from "./agent-client";
import { createElnorMcpServer } from "./create-server";

/**
 * `npm run mcp` / `npx elnor-learn mcp`: the MCP server on stdio, as desktop assistants launch
 * servers. stdout carries only MCP messages; anything for a person goes to stderr.
 */
async function main(): Promise<void> {
  const config = readMcpServerConfig();
  const mcp = createElnorMcpServer(createAgentClient(config));
  const transport = new StdioServerTransport();
  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    await mcp.close().catch(() => undefined);
    process.exit(0);
  };
  transport.onclose = () => void close();
  process.stdin.on("end", () => void close());
  process.on("SIGINT", () => void close());
  process.on("SIGTERM", () => void close());
  await mcp.server.connect(transport);
  mcp.watch(config.pollMs);
  process.stderr.write(`elnor-learn MCP server: talking to the agent at ${config.agentUrl} (token from ${config.tokenFile}).\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`elnor-learn MCP server did not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

#!/usr/bin/env node
// `npx elnor-learn mcp` (or `node mcp/bin/elnor-learn.mjs mcp` from a checkout): starts the MCP
// server. The sources are TypeScript, run through tsx as `npm start` runs the agent.
import { register } from "tsx/esm/api";

const [command] = process.argv.slice(2);
if (command !== "mcp") {
  process.stderr.write("Usage: elnor-learn mcp   (the MCP server on stdio; see the README's MCP section)\n");
  process.exit(command === undefined || command === "--help" || command === "-h" ? 0 : 2);
}
register();
await import("../server.ts");

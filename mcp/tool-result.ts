import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** A tool's answer: the structured result, and the same as JSON text for clients that show only text. */
export function toolResult(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(structured, null, 2) }], structuredContent: structured };
}

import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

/**
 * The MCP server's own codes, for what only it can see (the agent's own codes pass through as
 * the agent sent them: `ABILITY_NOT_FOUND`, `REQUEST_INVALID`, ...).
 */
export type McpServerErrorCode =
  | "AGENT_NOT_RUNNING"
  | "AGENT_TOKEN_MISSING"
  | "AGENT_TOKEN_REJECTED"
  | "AGENT_ANSWER_INVALID"
  | "AGENT_URL_NOT_LOOPBACK"
  | "ABILITY_NOT_ENABLED"
  | "ABILITY_NOT_RUNNABLE"
  | "RUN_NOT_FOUND";

/**
 * One error class for every refusal: a JSON-RPC error whose message starts with the code, so an
 * assistant reading only the text (a tool result with `isError`, as the SDK's McpServer reports a
 * tool's failure) still sees which one it is; `data.code` carries it for a program.
 */
export class ElnorMcpError extends McpError {
  readonly elnorCode: string;
  constructor(elnorCode: McpServerErrorCode | (string & {}), message: string, rpcCode: number = ErrorCode.InvalidParams) {
    super(rpcCode, `[${elnorCode}] ${message}`, { code: elnorCode });
    // Said once: the SDK's client puts "MCP error <code>:" in front of what crosses the wire.
    this.message = `[${elnorCode}] ${message}`;
    this.elnorCode = elnorCode;
    this.name = "ElnorMcpError";
  }
}

/** A failure of the agent itself (unreachable, unpaired, a bad answer): not the caller's fault. */
export function agentError(code: McpServerErrorCode | (string & {}), message: string): ElnorMcpError {
  return new ElnorMcpError(code, message, ErrorCode.InternalError);
}

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AGENT_VERSION } from "../shared/common/agent-version";
import type { AgentClient } from "./agent-client";
import { registerAbilityTools } from "./ability-tools";
import { watchEnabledSet } from "./enabled-abilities";
import { registerRunTools } from "./run-tools";
import { registerScheduleTools } from "./schedule-tools";
import { registerSkillResources } from "./skill-resources";

const INSTRUCTIONS = [
  "These tools reach the abilities the person taught their assistant by demonstrating a task once in their browser (elnor-learn).",
  "Call find_abilities with the person's request, describe_ability on the best match (or, when nothing matched, on the low-confidence candidate whose description fits the request) to learn its inputs (ask the person for any you do not know, never guess a secret), then run_ability, and report the checkpoints it proved.",
  "A step that sends, pays, deletes or publishes pauses the run in needs_confirmation: only the person can answer it in the side panel; there is no tool for you to confirm.",
  "list_schedules shows what the person scheduled to run by itself; only the person creates or changes a schedule.",
  "Each ability's SKILL.md is a resource (elnor-ability://<ability_id>/SKILL.md).",
].join(" ");

export interface ElnorMcpServer {
  server: McpServer;
  /** Starts announcing changes of the enabled set (once connected). */
  watch(pollMs: number): void;
  close(): Promise<void>;
}

/**
 * The MCP server: a thin client of the agent's local API (DESIGN "Abilities over MCP"). Tools are
 * fixed; what changes with installs, disables and removals is the set of enabled abilities, which
 * is the resource list, so that is what `notifications/resources/list_changed` announces.
 */
export function createElnorMcpServer(agent: AgentClient): ElnorMcpServer {
  const server = new McpServer(
    { name: "elnor-learn", title: "elnor-learn abilities", version: AGENT_VERSION },
    { instructions: INSTRUCTIONS, capabilities: { resources: { listChanged: true } } },
  );
  registerAbilityTools(server, agent);
  registerRunTools(server, agent);
  registerScheduleTools(server, agent);
  registerSkillResources(server, agent);
  let stopWatching = () => {};
  return {
    server,
    watch(pollMs) {
      stopWatching();
      const watch = watchEnabledSet(agent, pollMs, () => server.sendResourceListChanged());
      stopWatching = () => watch.stop();
    },
    async close() {
      stopWatching();
      await server.close();
    },
  };
}

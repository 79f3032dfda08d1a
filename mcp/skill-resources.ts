import { ResourceTemplate, type McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AbilitySkillMarkdownResponseSchema } from "../shared/abilities/skill-markdown";
import { ABILITY_ID_PATTERN } from "../shared/execution/run-contract";
import type { AgentClient } from "./agent-client";
import { enabledAbilities, requireEnabled } from "./enabled-abilities";
import { ElnorMcpError } from "./mcp-errors";

const SCHEME = "elnor-ability";

/** `elnor-ability://<ability_id>/SKILL.md`: one enabled ability's instructions. */
export function skillResourceUri(abilityId: string): string {
  return `${SCHEME}://${abilityId}/SKILL.md`;
}

/**
 * Each enabled installed ability's SKILL.md as a read-only resource, read through the agent's
 * skill-md route. The list is the enabled set as the agent says now; it changes with it, which is
 * what `notifications/resources/list_changed` announces.
 */
export function registerSkillResources(server: McpServer, agent: AgentClient): void {
  server.registerResource(
    "ability-skill-md",
    new ResourceTemplate(`${SCHEME}://{ability_id}/SKILL.md`, {
      list: async (extra) => ({
        resources: (await enabledAbilities(agent, extra.signal)).map((entry) => ({
          uri: skillResourceUri(entry.ability_id),
          name: entry.ability_id,
          title: `${entry.title} (SKILL.md)`,
          description: `Instructions of the ability "${entry.title}": its goal, when to use it, its inputs and checkpoints.`,
          mimeType: "text/markdown",
        })),
      }),
    }),
    {
      title: "An ability's SKILL.md",
      description: "The instructions of an enabled ability the person taught: what it does, when to use it, its inputs and the checkpoints a run proves.",
      mimeType: "text/markdown",
    },
    async (uri, variables, extra) => {
      const abilityId = variables.ability_id;
      if (typeof abilityId !== "string" || !ABILITY_ID_PATTERN.test(abilityId)) {
        throw new ElnorMcpError("ABILITY_NOT_ENABLED", `${uri.href.slice(0, 200)} names no ability.`);
      }
      await requireEnabled(agent, abilityId, extra.signal);
      const skill = await agent.get(`/api/abilities/${abilityId}/skill-md`, AbilitySkillMarkdownResponseSchema, extra.signal);
      return { contents: [{ uri: skillResourceUri(abilityId), mimeType: "text/markdown", text: skill.markdown }] };
    },
  );
}

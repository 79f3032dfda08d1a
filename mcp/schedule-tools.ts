import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { RunScheduleListResponseSchema, scheduleRuleText, type RunSchedule } from "../shared/execution/run-schedules";
import { AbilityIdArgSchema } from "./ability-tools";
import type { AgentClient } from "./agent-client";
import { toolResult } from "./tool-result";

export const ListSchedulesArgsSchema = z
  .object({ ability_id: AbilityIdArgSchema.optional().describe("Only this ability's schedules; all of them when left out.") })
  .strict();

/** A schedule as the assistant sees it: the names of its inputs, never their values. */
export function scheduleView(schedule: RunSchedule): Record<string, unknown> {
  return {
    schedule_id: schedule.schedule_id,
    ability_id: schedule.ability_id,
    ability_title: schedule.ability_title,
    when: scheduleRuleText(schedule.rule, schedule.time_zone),
    rule: schedule.rule,
    time_zone: schedule.time_zone,
    where: schedule.where,
    input_names: Object.keys(schedule.inputs).sort(),
    state: schedule.state,
    ...(schedule.pause === undefined ? {} : { paused_because: schedule.pause.message, pause_code: schedule.pause.code }),
    ...(schedule.next_due_at === undefined ? {} : { next_run_at: schedule.next_due_at }),
    ...(schedule.last_run === undefined ? {} : { last_run: schedule.last_run }),
  };
}

/**
 * list_schedules (issue #33): what the person scheduled, read-only. Only the person creates,
 * pauses, resumes or deletes schedules (in the side panel), so there is no tool for it here.
 */
export function registerScheduleTools(server: McpServer, agent: AgentClient): void {
  server.registerTool(
    "list_schedules",
    {
      title: "List the person's scheduled abilities",
      description:
        "The abilities the person set to run on a schedule (daily, weekly or every N hours): when each runs, whether it is active or paused (and why: paused by the person, or its skill was deactivated, deleted or changed version), when it runs next, and its last run (dispatch_id and outcome). Read-only: only the person creates or changes schedules, in the side panel's Skills page; input values are not shown.",
      inputSchema: ListSchedulesArgsSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => {
      const query = args.ability_id === undefined ? "" : `?ability_id=${encodeURIComponent(args.ability_id)}`;
      const { schedules } = await agent.get(`/api/schedules${query}`, RunScheduleListResponseSchema, extra.signal);
      return toolResult({ schedules: schedules.map(scheduleView), total: schedules.length });
    },
  );
}

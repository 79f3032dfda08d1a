import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import {
  AbilityRunSpecSchema,
  DISPATCH_ID_PATTERN,
  RunEventEnvelopeSchema,
  RunResponseSchema,
  StartRunRequestSchema,
  TERMINAL_RUN_STATES,
  type RunRecord,
} from "../shared/execution/run-contract";
import type { AgentClient } from "./agent-client";
import { requireEnabled } from "./enabled-abilities";
import { ElnorMcpError } from "./mcp-errors";
import { toolResult } from "./tool-result";

/**
 * How long a tool call follows a run before answering with the run as it is: under the 60 s a
 * client usually waits for a request without progress, so a long run answers "running" and the
 * assistant reads it on with get_run.
 */
export const RUN_WAIT_MS = 45_000;

export const RunAbilityArgsSchema = StartRunRequestSchema.pick({ ability_id: true, inputs: true, where: true })
  .extend({
    inputs: StartRunRequestSchema.shape.inputs.describe(
      "Input values by input name, as describe_ability lists them. Secret values are used for this run and forgotten, never stored or logged.",
    ),
    where: StartRunRequestSchema.shape.where.describe(
      "managed (default): a fresh headless browser, without the person's logins. user_tab: a tab of the person's own Chrome through the extension, where they are signed in; they see it act and can stop it.",
    ),
  })
  .strict();

const DispatchIdArgSchema = z.string().regex(DISPATCH_ID_PATTERN).describe("The run's dispatch_id, as run_ability returned it.");

export const GetRunArgsSchema = z
  .object({
    dispatch_id: DispatchIdArgSchema,
    wait_seconds: z
      .number()
      .int()
      .min(0)
      .max(RUN_WAIT_MS / 1000)
      .default(0)
      .describe("Wait up to this long for the run to move on (finish, or pause for confirmation) before answering."),
  })
  .strict();

export const CancelRunArgsSchema = z.object({ dispatch_id: DispatchIdArgSchema, reason: z.string().max(240).optional() }).strict();

/** Where a followed run stops being followed: over, or waiting for the person. */
const isSettled = (run: RunRecord) => TERMINAL_RUN_STATES.has(run.state) || run.state === "needs_confirmation";
const signature = (run: RunRecord) =>
  JSON.stringify([run.state, run.steps.length, run.checkpoints.map((checkpoint) => checkpoint.status), run.pending_confirmation?.confirmation_id]);

/** The run as the assistant sees it: never an input value, never the confirmation's id (not its to answer). */
export function runView(run: RunRecord): Record<string, unknown> {
  const proved = run.checkpoints.filter((checkpoint) => checkpoint.status === "reached").length;
  return {
    dispatch_id: run.dispatch_id,
    ability_id: run.ability_id,
    ability_title: run.ability_title,
    state: run.state,
    where: run.where,
    checkpoints_proved: `${proved} of ${run.checkpoints.length}`,
    checkpoints: run.checkpoints,
    steps: run.steps,
    ...(run.pending_confirmation === undefined
      ? {}
      : {
          waiting_for_confirmation: {
            step: run.pending_confirmation.step_label,
            reason: run.pending_confirmation.reason,
            asked_at: run.pending_confirmation.asked_at,
          },
        }),
    ...(run.failure === undefined ? {} : { failure: run.failure }),
    started_at: run.started_at,
    ...(run.completed_at === undefined ? {} : { completed_at: run.completed_at }),
    message: messageOf(run, proved),
  };
}

function messageOf(run: RunRecord, proved: number): string {
  switch (run.state) {
    case "needs_confirmation":
      return `The run is paused before "${run.pending_confirmation?.step_label ?? "a step with consequences"}". Only the person can confirm or decline it, in the elnor-learn side panel (or the browser notification it shows them when the panel is closed); you cannot confirm it for them. Tell them, then call get_run with wait_seconds to see the outcome.`;
    case "succeeded":
      return `Done: every step ran and ${proved} of ${run.checkpoints.length} checkpoints were proved on the page.`;
    case "failed":
      return `The run stopped: ${run.failure?.message ?? "a checkpoint did not hold"}. The skill is unchanged; the person can improve it from this run in the side panel.`;
    case "cancelled":
      return "The run was cancelled.";
    case "interrupted":
      return "The agent stopped while this run was going; it is not resumed on its own.";
    case "starting":
    case "running":
      return "The run is still going: call get_run with this dispatch_id (and wait_seconds) to follow it.";
  }
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Follows a run's SSE stream until it settles in a state other than `from`'s, `waitMs` passes or
 * the client cancels; reports each new frame as MCP progress when the client sent a progressToken.
 * Answers with the run as the agent has it then.
 */
async function follow(agent: AgentClient, from: RunRecord, waitMs: number, extra: Extra): Promise<RunRecord> {
  const token = extra._meta?.progressToken;
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), waitMs);
  const signal = AbortSignal.any([stop.signal, extra.signal]);
  const start = signature(from);
  let progress = 0;
  try {
    await agent.follow(
      `/api/runs/${from.dispatch_id}/events`,
      async (_event, data) => {
        const frame = RunEventEnvelopeSchema.safeParse(safeJson(data));
        if (!frame.success) return false;
        const run = frame.data.run;
        // The stream replays the run from its start: frames older than what the caller has are history.
        if (run.updated_at < from.updated_at) return false;
        if (token !== undefined) {
          progress += 1;
          const proved = run.checkpoints.filter((checkpoint) => checkpoint.status === "reached").length;
          await extra.sendNotification({
            method: "notifications/progress",
            params: {
              progressToken: token,
              progress,
              message: `${run.state}: ${proved} of ${run.checkpoints.length} checkpoints proved${run.steps.length > 0 ? `; last step "${run.steps[run.steps.length - 1]?.label}"` : ""}`,
            },
          });
        }
        return isSettled(run) && signature(run) !== start;
      },
      signal,
    );
  } catch (error) {
    if (!signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
  }
  if (extra.signal.aborted) return from;
  return (await agent.get(`/api/runs/${from.dispatch_id}`, RunResponseSchema)).run;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Runs started through MCP are the only ones an assistant may read or cancel here. */
async function ownRun(agent: AgentClient, dispatchId: string, signal: AbortSignal): Promise<RunRecord> {
  const { run } = await agent.get(`/api/runs/${dispatchId}`, RunResponseSchema, signal).catch((error: unknown) => {
    if (error instanceof ElnorMcpError && error.elnorCode.endsWith("NOT_FOUND"))
      throw new ElnorMcpError("RUN_NOT_FOUND", `No run ${dispatchId} started through MCP.`);
    throw error;
  });
  if (run.caller !== "mcp") throw new ElnorMcpError("RUN_NOT_FOUND", `No run ${dispatchId} started through MCP.`);
  return run;
}

/** run_ability, get_run and cancel_run. There is deliberately no confirm tool: that answer is the person's. */
export function registerRunTools(server: McpServer, agent: AgentClient): void {
  server.registerTool(
    "run_ability",
    {
      title: "Run an ability",
      description:
        "Runs an enabled ability with the person's input values and follows it, checkpoint by checkpoint, sending progress when you pass a progressToken. Answers with the run: its state, the checkpoints proved, and what the page showed if it stopped. A step that sends, pays, deletes or publishes pauses in state needs_confirmation: only the person can confirm it in the side panel. Call describe_ability first; ask the person for missing inputs.",
      inputSchema: RunAbilityArgsSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    async (args, extra) => {
      const entry = await requireEnabled(agent, args.ability_id, extra.signal);
      const spec = await agent.get(`/api/abilities/${entry.ability_id}/run-spec`, AbilityRunSpecSchema, extra.signal);
      if (!spec.runnable)
        throw new ElnorMcpError("ABILITY_NOT_RUNNABLE", `${entry.ability_id} cannot be run: ${spec.not_runnable_reason ?? "it has no flow to run"}.`);
      // Refused here, before the agent sees a value: input names it does not declare, or required ones missing.
      const declared = new Set(spec.inputs.map((input) => input.name));
      const unknown = Object.keys(args.inputs).filter((name) => !declared.has(name));
      const missing = spec.inputs.filter((input) => input.required && (args.inputs[input.name] ?? "") === "").map((input) => input.name);
      if (unknown.length > 0 || missing.length > 0) {
        throw new ElnorMcpError(
          "RUN_INPUTS_INVALID",
          [
            unknown.length > 0 ? `${entry.ability_id} has no input ${unknown.map((name) => `"${name}"`).join(", ")}` : "",
            missing.length > 0 ? `missing required input ${missing.map((name) => `"${name}"`).join(", ")}` : "",
          ]
            .filter((part) => part !== "")
            .join("; ")
            .concat(`. Its inputs: ${spec.inputs.map((input) => input.name).join(", ") || "none"}.`),
        );
      }
      const started = await agent.post(
        "/api/runs",
        StartRunRequestSchema.parse({ ability_id: entry.ability_id, inputs: args.inputs, where: args.where, caller: "mcp", schema_version: 1 }),
        RunResponseSchema,
        extra.signal,
      );
      const run = isSettled(started.run) ? started.run : await follow(agent, started.run, RUN_WAIT_MS, extra);
      return toolResult(runView(run));
    },
  );

  server.registerTool(
    "get_run",
    {
      title: "Read a run",
      description:
        "A run started with run_ability: its state, each checkpoint with its status and evidence, the steps done, and where it stopped. With wait_seconds, waits for it to move on first (for example after the person answered a confirmation).",
      inputSchema: GetRunArgsSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => {
      const run = await ownRun(agent, args.dispatch_id, extra.signal);
      const waited = args.wait_seconds > 0 && !TERMINAL_RUN_STATES.has(run.state) ? await follow(agent, run, args.wait_seconds * 1000, extra) : run;
      return toolResult(runView(waited));
    },
  );

  server.registerTool(
    "cancel_run",
    {
      title: "Cancel a run",
      description:
        "Stops a run started with run_ability now (also one waiting for the person's confirmation). A cancelled run changes nothing more on the page.",
      inputSchema: CancelRunArgsSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (args, extra) => {
      const run = await ownRun(agent, args.dispatch_id, extra.signal);
      if (TERMINAL_RUN_STATES.has(run.state)) return toolResult(runView(run));
      const cancelled = await agent.post(
        `/api/runs/${run.dispatch_id}/cancel`,
        { ...(args.reason === undefined ? {} : { reason: args.reason }), schema_version: 1 },
        RunResponseSchema,
        extra.signal,
      );
      return toolResult(runView(cancelled.run));
    },
  );
}

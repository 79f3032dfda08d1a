import { z } from "zod";
import { CheckpointProgressStatusSchema } from "../learning/checkpoints/checkpoint-receipt";
import { DISPATCH_ID_PATTERN, PendingConfirmationSchema, RunCallerSchema, RunStateSchema, RunWhereSchema, type RunRecord } from "./run-contract";

/**
 * Issue #33 "ask where the person is": what the agent tells the extension about a run so that it
 * can ask outside the side panel (a Chrome notification with Do it / Don't, the toolbar badge ASK)
 * and say how the run ended. A notice is cut from the run record, which never holds an input
 * value, plus the ability's sites; it carries nothing the record does not (no evidence, no page
 * seen). The person answers through `POST /api/runs/:dispatchId/confirm`, as in the panel.
 */
export const RunNoticeSchema = z.object({
  dispatch_id: z.string().regex(DISPATCH_ID_PATTERN),
  ability_id: z.string().max(160),
  ability_title: z.string().max(160),
  state: RunStateSchema,
  where: RunWhereSchema,
  caller: RunCallerSchema,
  /** The hosts the ability was learned on (its run-spec's `sites`): where the step happens. */
  sites: z.array(z.string().max(120)).max(20),
  pending_confirmation: PendingConfirmationSchema.optional(),
  failure: z.object({ code: z.string().max(80), message: z.string().max(1000) }).optional(),
  /** Each checkpoint's goal in the person's words and how far the run got. */
  checkpoints: z.array(z.object({ checkpoint_id: z.string().max(80), goal: z.string().max(240), status: CheckpointProgressStatusSchema })).max(100),
});
export type RunNotice = z.infer<typeof RunNoticeSchema>;

/** The notice of a run as its record is now. */
export function runNoticeOf(run: RunRecord, sites: readonly string[]): RunNotice {
  return {
    dispatch_id: run.dispatch_id,
    ability_id: run.ability_id,
    ability_title: run.ability_title,
    state: run.state,
    where: run.where,
    caller: run.caller,
    sites: sites.slice(0, 20),
    ...(run.pending_confirmation === undefined ? {} : { pending_confirmation: run.pending_confirmation }),
    ...(run.failure === undefined ? {} : { failure: { code: run.failure.code, message: run.failure.message } }),
    checkpoints: run.checkpoints.slice(0, 100).map(({ checkpoint_id, goal, status }) => ({ checkpoint_id, goal, status })),
  };
}

/**
 * Agent → extension over the one WebSocket (`GET /api/observations/stream`, capture-protocol.ts):
 * `run_notices` right after every `welcome` — the runs waiting for the person now, so a worker
 * that was stopped and started again catches up — and `run_notice` whenever a run starts waiting,
 * stops waiting (answered anywhere) or ends.
 */
export const AgentRunNoticeFrameSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("run_notices"), waiting: z.array(RunNoticeSchema).max(50) }),
  z.object({ type: z.literal("run_notice"), notice: RunNoticeSchema }),
]);
export type AgentRunNoticeFrame = z.infer<typeof AgentRunNoticeFrameSchema>;

/**
 * The run a notification's click asks the side panel to show: the worker writes it in
 * the session storage area under {@link PANEL_RUN_FOCUS_KEY} as it opens the panel, and the panel
 * opens that run when it reads one newer than its own start.
 */
export const PanelRunFocusSchema = z.object({ dispatch_id: z.string().regex(DISPATCH_ID_PATTERN), at: z.string().datetime() });
export type PanelRunFocus = z.infer<typeof PanelRunFocusSchema>;
export const PANEL_RUN_FOCUS_KEY = "session:panelRunFocus";

import { z } from "zod";

/**
 * What else is known of a step's element, for relocating it when every selector misses (issue
 * #14, agent/execution/replay/target-relocation.ts): its role and name, and the row it sits in — by the
 * parameter whose value the row shows, or by position. Recorder parsers ignore the field.
 */
export const RelocationHintSchema = z.object({
  role: z.string().optional(),
  name: z.string().optional(),
  row_parameter: z.string().optional(),
  /** The text of the row it sits in, when that names the row (issue #35: a list drawn anew or sorted). */
  row_text: z.string().optional(),
  row_position: z.number().optional(),
});
export type RelocationHint = z.infer<typeof RelocationHintSchema>;

/** Selector alternatives in order; each alternative is a path (one part per shadow root or frame). */
const SelectorsSchema = z.array(z.array(z.string()));

/**
 * A step of the Chrome DevTools Recorder format (the subset we emit). `confirm: true` marks a step
 * with consequences the executor asks the person about before doing it (issue #21); Recorder parsers
 * ignore the field. `timeout` (ms) is the Recorder's own per-step wait: how long this step waits for
 * its element or page instead of the run's step wait (set by practice for content that loads late).
 */
export const RecorderStepSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("setViewport"),
    width: z.number(),
    height: z.number(),
    deviceScaleFactor: z.number(),
    isMobile: z.boolean(),
    hasTouch: z.boolean(),
    isLandscape: z.boolean(),
  }),
  z.object({ type: z.literal("navigate"), url: z.string(), timeout: z.number().optional() }),
  z.object({
    type: z.literal("click"),
    selectors: SelectorsSchema,
    offsetX: z.number(),
    offsetY: z.number(),
    frame: z.array(z.number()).optional(),
    hint: RelocationHintSchema.optional(),
    confirm: z.boolean().optional(),
    timeout: z.number().optional(),
  }),
  z.object({
    type: z.literal("change"),
    selectors: SelectorsSchema,
    value: z.string(),
    frame: z.array(z.number()).optional(),
    hint: RelocationHintSchema.optional(),
    confirm: z.boolean().optional(),
    timeout: z.number().optional(),
  }),
  z.object({ type: z.literal("keyDown"), key: z.string(), confirm: z.boolean().optional() }),
  z.object({ type: z.literal("keyUp"), key: z.string() }),
  z.object({ type: z.literal("waitForElement"), selectors: SelectorsSchema, timeout: z.number().optional() }),
]);
export type RecorderStep = z.infer<typeof RecorderStepSchema>;

/**
 * A Chrome DevTools Recorder flow as the compiler writes it (`flow.recorder.json`, DESIGN §6.3) and
 * the executor replays it. `step_ids`: for each entry of `steps`, the normalized step it replays
 * (null for set-up steps), so each checkpoint is checked after its last step. Recorder parsers
 * ignore the field.
 */
export const RecorderFlowSchema = z.object({
  title: z.string(),
  steps: z.array(RecorderStepSchema),
  step_ids: z.array(z.string().nullable()),
});
export type RecorderFlow = z.infer<typeof RecorderFlowSchema>;

import { z } from "zod";

/**
 * Coaching Agent (§0B.5, §0C.3–4, issue #16): "the user gives structure, hints and example
 * constraints; the agent fills in parts of the workflow on its own". The person lists the steps in
 * their own words; for each one the agent proposes the control or page that fits, and the person
 * answers Do it, Not that — I'll show you, or Skip. Nothing here ever holds a typed value: the agent
 * only clicks what the person agreed to, and what the person shows is captured by the content
 * script, masked as always.
 */

/** One step of the task, in the person's words, with an optional hint ("it is in the top menu"). */
export const CoachingStepSchema = z
  .object({
    words: z.string().trim().min(2).max(200),
    hint: z.string().trim().max(200).optional(),
  })
  .strict();
export type CoachingStep = z.infer<typeof CoachingStepSchema>;

/** `POST /api/learn/sessions/:sessionId/coaching`: where to start and the steps, in order. */
export const CoachingSetupSchema = z
  .object({
    /** The page the task starts on; its site must be one of the session's sites. */
    start_url: z
      .string()
      .url()
      .max(2048)
      .refine((url) => /^https?:\/\//i.test(url), "an http(s) address"),
    steps: z.array(CoachingStepSchema).min(1).max(20),
  })
  .strict();
export type CoachingSetup = z.infer<typeof CoachingSetupSchema>;

/** What the agent proposes for a step: a control in the page, found by its accessible name. */
export const CoachingTargetSchema = z.object({
  /** The accessible role: link, button, tab, menuitem, checkbox, textbox, heading… */
  role: z.string().max(40),
  /** The accessible name the person sees (never a field's value). */
  name: z.string().max(200),
  /** Why it fits the words, readably ("'invoices' is in the link's name; 'open … page' asks for a link"). */
  why: z.string().max(400),
  /** The matcher's score, 0–1. */
  score: z.number().min(0).max(1),
});
export type CoachingTarget = z.infer<typeof CoachingTargetSchema>;

export const CoachingAnswerKindSchema = z.enum(["do_it", "show_me", "skip"]);
export type CoachingAnswerKind = z.infer<typeof CoachingAnswerKindSchema>;

/** `POST /api/learn/sessions/:sessionId/coaching/answer`: the answer to the turn now open. */
export const CoachingAnswerRequestSchema = z.object({ turn: z.number().int().min(1), answer: CoachingAnswerKindSchema }).strict();
export type CoachingAnswerRequest = z.infer<typeof CoachingAnswerRequestSchema>;

/** `POST /api/learn/sessions/:sessionId/coaching/shown`: "I did it" after "Not that — I'll show you". */
export const CoachingShownRequestSchema = z.object({ turn: z.number().int().min(1) }).strict();
export type CoachingShownRequest = z.infer<typeof CoachingShownRequestSchema>;

/**
 * One step's turn. `proposing`: the agent looks for the control; `awaiting_answer`: it proposed
 * `target` (or found nothing that fits: `target` absent) and waits; `acting`: it does the step in
 * the tab; `user_showing`: the person does it; then `done` (the agent did it and the page changed as
 * expected), `shown`, `skipped` or `failed` (the agent's attempt did not change the page as expected).
 */
export const CoachingTurnSchema = z.object({
  turn: z.number().int().min(1),
  step_index: z.number().int().min(0),
  words: z.string().max(200),
  hint: z.string().max(200).optional(),
  status: z.enum(["proposing", "awaiting_answer", "acting", "user_showing", "done", "shown", "skipped", "failed"]),
  target: CoachingTargetSchema.optional(),
  /** Other candidates, best first, for the person to see what else was considered. */
  alternatives: z.array(CoachingTargetSchema).max(3).default([]),
  answer: CoachingAnswerKindSchema.optional(),
  /** What happened, in words, without any value from the page's fields. */
  outcome: z.string().max(600).optional(),
  /** After the agent's action: whether the page changed as expected, and how. */
  page_check: z.object({ changed: z.boolean(), evidence: z.string().max(400) }).optional(),
});
export type CoachingTurn = z.infer<typeof CoachingTurnSchema>;

/** `GET /api/learn/sessions/:sessionId/coaching`: where the coaching is, turn by turn. */
export const CoachingStateSchema = z.object({
  learn_session_id: z.string().uuid(),
  /**
   * `waiting_for_capture`: set up, waiting for the session to be started; `opening`: the agent is
   * being lent the tab; `turns`: taking turns; `finished`: every step had its turn (stop the
   * session to compile); `failed`: the tab could not be had or was taken back; `ended`: the session ended.
   */
  status: z.enum(["waiting_for_capture", "opening", "turns", "finished", "failed", "ended"]),
  message: z.string().max(600),
  start_url: z.string().max(2048),
  steps: z.array(CoachingStepSchema).max(20),
  turns: z.array(CoachingTurnSchema).max(40),
  error_code: z.string().max(60).optional(),
  updated_at: z.string().datetime(),
  schema_version: z.literal(1),
});
export type CoachingState = z.infer<typeof CoachingStateSchema>;

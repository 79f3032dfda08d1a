import { z } from "zod";

/**
 * Autonomous Agent Practice (§0B.5, §0C.3–4, issue #16): "the user gives goal, constraints and
 * policy; the agent iterates toward a verified solution". What to practise, and how.
 */

/** An installed skill (its `ability_id`) or a draft proposal (its `proposal_id`). */
export const PracticeTargetSchema = z.union([
  z.object({ ability_id: z.string().min(1).max(160) }).strict(),
  z.object({ proposal_id: z.string().uuid() }).strict(),
]);
export type PracticeTarget = z.infer<typeof PracticeTargetSchema>;

/** A browser window size a round is played in. */
export const PracticeViewportSchema = z.object({ width: z.number().int().min(320).max(3840), height: z.number().int().min(320).max(2160) }).strict();
export type PracticeViewport = z.infer<typeof PracticeViewportSchema>;

export const DEFAULT_PRACTICE_VIEWPORTS: readonly PracticeViewport[] = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

/**
 * `practice` of `POST /api/learn/sessions` with `entry_mode: autonomous_agent_practice`. The sites
 * allowed are the session's `target_app_whitelist`; the test policy is the request's `test_policy`
 * (§0C.14). `input_sets` are kept in the agent's memory for the session only: never written to a
 * file, a log, a receipt or an event, and gone when the practice ends.
 */
export const PracticeSetupSchema = z
  .object({
    practise: PracticeTargetSchema,
    /** The goal in the user's words; prefilled from the skill by a client. */
    goal_summary: z.string().max(600).optional(),
    /** What success looks like, in the user's words. */
    success_description: z.string().max(600).optional(),
    /** How many rounds to play; one more may follow to confirm the last repair. */
    rounds: z.number().int().min(1).max(10).default(3),
    /** Sets of test inputs by parameter name; round N uses set N (cycling). */
    input_sets: z
      .array(z.record(z.string().max(80), z.string().max(1000)))
      .max(10)
      .default([]),
    /** Window sizes; round N uses size N (cycling). */
    viewports: z
      .array(PracticeViewportSchema)
      .min(1)
      .max(4)
      .default([...DEFAULT_PRACTICE_VIEWPORTS]),
    /** How long one step may wait for its element, as a run of the skill waits (ms). */
    step_timeout_ms: z.number().int().min(500).max(30_000).default(5_000),
  })
  .strict();
export type PracticeSetup = z.infer<typeof PracticeSetupSchema>;

/** One repair the agent made to the flow or a checkpoint, and whether a later round confirmed it. */
export const PracticeRepairSchema = z.object({
  /** `step_waits_longer`: the step's element loads late, so the step got its own (Recorder `timeout`) wait. */
  kind: z.enum(["target_relocated", "checkpoint_input_specific", "step_waits_longer"]),
  /** The step (`step:<id>`) or checkpoint (`checkpoint:<id>`) repaired. */
  subject: z.string().max(160),
  /** What was changed, in words, without input values. */
  description: z.string().max(600),
  made_in_round: z.number().int().min(1),
  confirmed_in_round: z.number().int().min(1).optional(),
});
export type PracticeRepair = z.infer<typeof PracticeRepairSchema>;

/** What one round did: its window size and input set (by number, never its values), what held and what failed. */
export const PracticeRoundSchema = z.object({
  round: z.number().int().min(1),
  viewport: PracticeViewportSchema,
  /** 1-based number of the input set used; absent when none were given. */
  input_set: z.number().int().min(1).optional(),
  overall: z.enum(["passed", "failed", "partial"]),
  held: z.array(z.string().max(240)).max(200),
  failed: z.array(z.object({ test_case_id: z.string().max(160), label: z.string().max(240), details: z.string().max(1000) })).max(200),
  repairs_made: z.array(z.string().max(160)).max(50),
  started_at: z.string().datetime(),
  completed_at: z.string().datetime(),
});
export type PracticeRound = z.infer<typeof PracticeRoundSchema>;

/** `GET /api/learn/sessions/:sessionId/practice`: where a practice is and what it found. */
export const PracticeReportSchema = z.object({
  learn_session_id: z.string().uuid(),
  practise: PracticeTargetSchema,
  /** The goal and success as the person put them at set-up (shown with the rounds; the rounds check the skill's own checkpoints). */
  goal_summary: z.string().max(600).optional(),
  success_description: z.string().max(600).optional(),
  status: z.enum(["running", "proposed", "nothing_to_repair", "could_not_repair", "policy_violation", "failed"]),
  message: z.string().max(600),
  rounds: z.array(PracticeRoundSchema).max(20),
  repairs: z.array(PracticeRepairSchema).max(50),
  /** What the practice found and could not repair (content that loads late, an element that is gone). */
  findings: z.array(z.string().max(600)).max(50).default([]),
  proposal_id: z.string().uuid().optional(),
  error_code: z.enum(["TEST_POLICY_VIOLATION", "ABILITY_NOT_FOUND", "PROPOSAL_NOT_FOUND"]).optional(),
  updated_at: z.string().datetime(),
  schema_version: z.literal(1),
});
export type PracticeReport = z.infer<typeof PracticeReportSchema>;

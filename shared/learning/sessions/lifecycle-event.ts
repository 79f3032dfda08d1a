import { z } from "zod";

/** §0C.13 Saga events of the learning lifecycle; the saga table there says which command emits which. */
export const LearningLifecycleEventSchema = z.enum([
  "learn.session.started",
  "learn.capture.started",
  "learn.capture.paused",
  "learn.capture.stopped",
  "learn.proposal.created",
  "learn.proposal.questions_requested",
  "learn.validation.started",
  "learn.validation.completed",
  "learn.install.started",
  "learn.install.completed",
  "bridge.rebuild.started",
  "bridge.rebuild.completed",
  "ability.snapshot.updated",
  "ability.route.enabled",
  "ability.quarantined",
]);
/** §0C.13 */
export type LearningLifecycleEvent = z.infer<typeof LearningLifecycleEventSchema>;

/**
 * §0C.16C, §0C.16E The SSE `event:` names on `GET /api/learn/sessions/:sessionId/events`: every
 * lifecycle event, the three checkpoint outcomes, and `error`, which the side panel must show as a
 * degraded banner. `learn.session.cancelled` is not here: §0C.16D names it as a receipt kind
 * (see ./receipts); the stream simply closes when the session becomes terminal.
 */
export const LearnStreamEventKindSchema = z.enum([
  ...LearningLifecycleEventSchema.options,
  // Session changes §0C.13 has no event for, under their receipt names (receipts.ts), so a
  // watching panel learns of an arm, a resume or a cancel (§0C.16D's name) without polling.
  "learn.session.cancelled",
  "learn.capture.armed",
  "learn.capture.resumed",
  "checkpoint.reached",
  "checkpoint.skipped",
  "checkpoint.failed",
  // Coaching Agent (issue #16): a turn was proposed, answered or done, or the coaching ended
  // (`coaching_status` in the payload); GET …/coaching has the whole state.
  "coaching.turn",
  "error",
]);
/** §0C.16C */
export type LearnStreamEventKind = z.infer<typeof LearnStreamEventKindSchema>;

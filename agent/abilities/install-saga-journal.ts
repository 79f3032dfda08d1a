import { z } from "zod";

/**
 * An install saga's journal, written before the saga changes anything and removed when it has
 * finished or been undone: the files it will write as they were (`text: null` for absent) and the
 * workspace projection as it was.
 */
export const InstallSagaJournalSchema = z.object({
  saga_id: z.string().uuid(),
  proposal_id: z.string().uuid(),
  learn_session_id: z.string(),
  ability_id: z.string(),
  skill_name: z.string(),
  lane: z.enum(["experimental_private", "approved_workspace"]),
  approving_installed: z.boolean(),
  existed: z.boolean(),
  previous: z.array(z.object({ path: z.string(), text: z.string().nullable() })),
  previous_projection: z.record(z.string(), z.string()).nullable(),
  started_at: z.string(),
});
export type InstallSagaJournal = z.infer<typeof InstallSagaJournalSchema>;

/** The saga's steps, in order (§0C.23 post-materialization saga); tests fail each in turn. */
export const INSTALL_SAGA_STEPS = ["materialize", "project", "bridge", "availability"] as const;
export type InstallSagaStep = (typeof INSTALL_SAGA_STEPS)[number];

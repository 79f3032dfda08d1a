import type { ProposalEdits } from "../../../shared/learning/proposals/proposal-edits";
import { parseSuccessCondition } from "../../../shared/learning/checkpoints/success-conditions";
import type { Interpretation } from "../compiler/interpret";

type Checkpoint = Interpretation["checkpoints"][number];
type CheckpointEdit = NonNullable<ProposalEdits["checkpoints"]>[number];

/** The user's edits laid over the compiled interpretation: wording, triggers, checkpoints. */
export function applyEdits(compiled: Interpretation, edits: ProposalEdits): Interpretation {
  return {
    ...compiled,
    ...(edits.title === undefined ? {} : { title: edits.title }),
    ...(edits.goal_summary === undefined ? {} : { goal_summary: edits.goal_summary }),
    ...(edits.use_conditions === undefined ? {} : { use_conditions: edits.use_conditions }),
    ...(edits.non_use_conditions === undefined
      ? {}
      : { non_use_conditions: edits.non_use_conditions, negative_triggers: edits.non_use_conditions.map((line) => line.slice(0, 120)) }),
    ...(edits.trigger_phrases === undefined ? {} : { triggers: edits.trigger_phrases }),
    ...(edits.negative_triggers === undefined ? {} : { negative_triggers: edits.negative_triggers }),
    checkpoints: compiled.checkpoints.map((checkpoint) => {
      const edit = edits.checkpoints?.find((candidate) => candidate.checkpoint_id === checkpoint.checkpoint_id);
      return edit === undefined ? checkpoint : editCheckpoint(checkpoint, edit);
    }),
  };
}

function editCheckpoint(checkpoint: Checkpoint, edit: CheckpointEdit): Checkpoint {
  // A condition the user wrote is checked in the page only when it is one of the sentences the rehearsal reads.
  const verification =
    edit.verified_by === "person"
      ? { by: "person" as const, reason: "You chose to confirm this yourself at each run." }
      : edit.success_condition === undefined
        ? checkpoint.verification
        : parseSuccessCondition(edit.success_condition).kind === "by_hand"
          ? { by: "person" as const, reason: "You wrote this condition in your own words; a person confirms it." }
          : { by: "page" as const };
  return {
    ...checkpoint,
    ...(edit.goal === undefined ? {} : { goal: edit.goal }),
    ...(edit.success_condition === undefined ? {} : { success_condition: edit.success_condition, observable: true }),
    verification,
  };
}

import type { ProposalDetailResponse } from "../../../shared/learning/route-contracts";
import type { ProposalEdits } from "../proposal/proposal-review.svelte";

/** The revise form's fields: lists are edited one entry per line. */
export interface ReviseDraft {
  instructions: string;
  title: string;
  goal_summary: string;
  use_conditions: string;
  non_use_conditions: string;
  trigger_phrases: string;
  negative_triggers: string;
  checkpoints: Array<{ checkpoint_id: string; goal: string; success_condition: string }>;
}

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((value, index) => value === b[index]);

export function reviseDraftOf(detail: ProposalDetailResponse): ReviseDraft {
  const interpretation = detail.interpretation;
  return {
    instructions: "",
    title: detail.proposal.title,
    goal_summary: interpretation?.goal_summary ?? "",
    use_conditions: (interpretation?.use_conditions ?? []).join("\n"),
    non_use_conditions: (interpretation?.non_use_conditions ?? []).join("\n"),
    trigger_phrases: detail.proposal.trigger_phrases.join("\n"),
    negative_triggers: detail.proposal.negative_triggers.join("\n"),
    checkpoints: (interpretation?.checkpoints ?? []).map(({ checkpoint_id, goal, success_condition }) => ({ checkpoint_id, goal, success_condition })),
  };
}

/** Only what the person changed is sent as `edited_fields`. */
export function editsFrom(draft: ReviseDraft, detail: ProposalDetailResponse): ProposalEdits {
  const before = reviseDraftOf(detail);
  const edits: ProposalEdits = {};
  if (draft.title.trim() !== before.title && draft.title.trim() !== "") edits.title = draft.title.trim();
  if (draft.goal_summary.trim() !== before.goal_summary && draft.goal_summary.trim() !== "") edits.goal_summary = draft.goal_summary.trim();
  for (const key of ["use_conditions", "non_use_conditions", "trigger_phrases", "negative_triggers"] as const) {
    const now = lines(draft[key]);
    if (!sameList(now, lines(before[key]))) edits[key] = now;
  }
  const checkpoints = draft.checkpoints
    .map((checkpoint) => {
      const old = before.checkpoints.find((candidate) => candidate.checkpoint_id === checkpoint.checkpoint_id);
      const edit: { checkpoint_id: string; goal?: string; success_condition?: string } = { checkpoint_id: checkpoint.checkpoint_id };
      if (old !== undefined && checkpoint.goal.trim() !== old.goal && checkpoint.goal.trim() !== "") edit.goal = checkpoint.goal.trim();
      if (old !== undefined && checkpoint.success_condition.trim() !== old.success_condition) edit.success_condition = checkpoint.success_condition.trim();
      return edit;
    })
    .filter((edit) => edit.goal !== undefined || edit.success_condition !== undefined);
  if (checkpoints.length > 0) edits.checkpoints = checkpoints;
  return edits;
}

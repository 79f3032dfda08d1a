import { SkillBundleProposalSchema } from "../../../shared/skills/proposal";
import type { Clock } from "../../common/clock";
import { AppError } from "../../errors/app-error";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import { draftFolderOf, type ProposalLog } from "./proposal-log";
import type { SessionService } from "../sessions/session-service";

/**
 * A new draft revision of a proposal whose files are the current ones changed by `edit` (Use as
 * Example, issue #16), as Request More Tests makes one: refused while a validation runs or outside
 * review, drafting or quarantine; the session moves to `drafting_proposal` first, so a refused move
 * leaves nothing pointing at the new files; the proposal goes back to `draft` until validated.
 * `edit` runs before anything is written and may throw a coded error.
 */
export async function reviseDraftFiles(
  deps: { memory: MemoryStore; sessions: SessionService; clock: Clock; log: ProposalLog },
  proposalId: string,
  edit: (files: Record<string, string>) => Record<string, string>,
  payload: Record<string, unknown>,
): Promise<{ revision: number; sessionId: string }> {
  const record = deps.log.find(proposalId);
  const sessionId = record.proposal.learn_session_id as string;
  const session = deps.sessions.get(sessionId);
  if (session.state === "testing_proposal")
    throw new AppError("VALIDATION_IN_PROGRESS", "A validation of this proposal is running; try again once it has finished.");
  if (!["ready_for_review", "drafting_proposal", "quarantined"].includes(session.state)) {
    throw new AppError(
      "INVALID_LEARN_STATE_TRANSITION",
      `A proposal takes a new revision in review, drafting or quarantine, not while its session is ${session.state}.`,
    );
  }
  const from = draftFolderOf(record.proposal);
  const files: Record<string, string> = {};
  for (const name of await deps.memory.list(from)) {
    const text = await deps.memory.readText(`${from}/${name}`);
    if (text !== undefined) files[name] = text;
  }
  const next = edit(files);
  const revision = record.revision + 1;
  await deps.sessions.advance(sessionId, session.state === "drafting_proposal" ? [] : ["drafting_proposal"], {}, [
    { receipt: "learn.proposal.revision_requested", event: "learn.proposal.created", payload: { proposal_id: proposalId, revision, ...payload } },
  ]);
  const folder = MemoryPaths.draftRevision(proposalId, revision);
  for (const [name, text] of Object.entries(next)) await deps.memory.writeText(`${folder}/${name}`, text);
  const moved = (path: string | undefined) => (path === undefined ? undefined : `${folder}/${path.slice(from.length + 1)}`);
  const proposal = SkillBundleProposalSchema.parse({
    ...record.proposal,
    draft_skill_path: moved(record.proposal.draft_skill_path),
    draft_manifest_path: moved(record.proposal.draft_manifest_path),
    ...(record.proposal.draft_graph_ref === undefined ? {} : { draft_graph_ref: moved(record.proposal.draft_graph_ref) }),
    proposal_state: "draft",
    install_lane: "pending",
    updated_at: deps.clock.now().toISOString(),
  });
  await deps.log.put({ proposal, revision, lint: record.lint });
  return { revision, sessionId };
}

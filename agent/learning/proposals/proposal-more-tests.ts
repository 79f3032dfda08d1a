import { z } from "zod";
import { ProposalTriggerTestsSchema, type RequestMoreTestsRequest } from "../../../shared/learning/proposal-tests";
import { SkillBundleProposalSchema } from "../../../shared/skills/proposal";
import type { Clock } from "../../common/clock";
import { AppError } from "../../errors/app-error";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";
import { moreTriggerTests } from "../compiler/revision/more-trigger-tests";
import { draftFolderOf, type ProposalLog } from "./proposal-log";
import type { SessionService } from "../sessions/session-service";
import { DraftFiles } from "../../../shared/skills/skill-folder";

/**
 * A draft revision's `trigger-tests.json`: the tests, and each "Request More Tests" that added
 * some (what the user asked for, kept with the revision it produced).
 */
const TriggerTestsFileSchema = ProposalTriggerTestsSchema.extend({
  requests: z
    .array(
      z.object({
        requested_at: z.string().datetime(),
        positive_examples: z.array(z.string()),
        negative_examples: z.array(z.string()),
        note: z.string().optional(),
      }),
    )
    .default([]),
});

type MoreTestsDeps = { memory: MemoryStore; sessions: SessionService; clock: Clock; log: ProposalLog };
type TriggerTestsFile = z.infer<typeof TriggerTestsFileSchema>;

/** §0C.1A: a proposal takes more tests in review, drafting or quarantine, never while a validation runs. */
function assertTakesTests(state: string): void {
  if (state === "testing_proposal") {
    throw new AppError("VALIDATION_IN_PROGRESS", "A validation of this proposal is running; request more tests once it has finished.");
  }
  // §0C.1A: each of these may move to drafting_proposal (or is there already).
  if (!["ready_for_review", "drafting_proposal", "quarantined"].includes(state)) {
    throw new AppError(
      "INVALID_LEARN_STATE_TRANSITION",
      `More tests are added to a proposal in review, drafting or quarantine, not while the session is ${state}.`,
    );
  }
}

/** The new revision's folder: the current one's files as they are, with the longer test list and the request that made it. */
async function writeRevisionWithTests(
  memory: MemoryStore,
  from: string,
  folder: string,
  tests: TriggerTestsFile,
  added: ReturnType<typeof moreTriggerTests>,
  request: RequestMoreTestsRequest,
  at: string,
): Promise<void> {
  for (const name of await memory.list(from)) {
    if (name === DraftFiles.triggerTests) continue;
    const text = await memory.readText(`${from}/${name}`);
    if (text !== undefined) await memory.writeText(`${folder}/${name}`, text);
  }
  await memory.writeJson(`${folder}/${DraftFiles.triggerTests}`, {
    positive: [...tests.positive, ...added.positive],
    paraphrases: [...tests.paraphrases, ...added.paraphrases],
    negative: [...tests.negative, ...added.negative],
    requests: [
      ...tests.requests,
      {
        requested_at: at,
        positive_examples: request.positive_examples,
        negative_examples: request.negative_examples,
        ...(request.note === undefined || request.note === "" ? {} : { note: request.note }),
      },
    ],
  });
}

/**
 * §0C.18 "Request More Tests": the current revision's trigger tests plus the user's examples and
 * generated ones, as a new draft revision (the previous one is kept). The proposal goes back to
 * `draft` / `drafting_proposal` until a validation runs the new tests. Returns the tests added.
 */
export async function addTriggerTests(deps: MoreTestsDeps, proposalId: string, request: RequestMoreTestsRequest) {
  const { find, put } = deps.log;
  const record = find(proposalId);
  const sessionId = record.proposal.learn_session_id as string;
  const session = deps.sessions.get(sessionId);
  assertTakesTests(session.state);
  const from = draftFolderOf(record.proposal);
  const tests = (await deps.memory.readJson(`${from}/${DraftFiles.triggerTests}`, TriggerTestsFileSchema)) ?? {
    positive: [],
    paraphrases: [],
    negative: [],
    requests: [],
  };
  const added = moreTriggerTests(tests, { title: record.proposal.title, triggers: record.proposal.trigger_phrases }, request);
  const count = added.positive.length + added.paraphrases.length + added.negative.length;
  if (count === 0) {
    throw new AppError("REQUEST_INVALID", "Every one of these requests is already a test of this proposal; give a new example request.");
  }
  // A new revision: the current one's files as they are, with the longer test list.
  const revision = record.revision + 1;
  // The session moves first: if the move is refused (the proposal was rejected or a validation
  // started meanwhile), nothing points at the new revision.
  const current = deps.sessions.get(sessionId).state;
  if (current !== session.state)
    throw new AppError(
      current === "testing_proposal" ? "VALIDATION_IN_PROGRESS" : "INVALID_LEARN_STATE_TRANSITION",
      `The proposal changed while the tests were being added (the session is now ${current}); try again.`,
    );
  await deps.sessions.advance(sessionId, current === "drafting_proposal" ? [] : ["drafting_proposal"], {}, [
    {
      receipt: "learn.proposal.revision_requested",
      event: "learn.proposal.created",
      payload: {
        proposal_id: proposalId,
        revision,
        more_tests: { positive: added.positive.length, paraphrases: added.paraphrases.length, negative: added.negative.length },
        note_length: request.note?.length ?? 0,
      },
    },
  ]);
  const folder = MemoryPaths.draftRevision(proposalId, revision);
  const at = deps.clock.now().toISOString();
  await writeRevisionWithTests(deps.memory, from, folder, tests, added, request, at);
  const moved = (path: string | undefined) => (path === undefined ? undefined : `${folder}/${path.slice(from.length + 1)}`);
  // Tests that never ran cannot leave it ready for review: back to draft until validated.
  const proposal = SkillBundleProposalSchema.parse({
    ...record.proposal,
    draft_skill_path: moved(record.proposal.draft_skill_path),
    draft_manifest_path: moved(record.proposal.draft_manifest_path),
    ...(record.proposal.draft_graph_ref === undefined ? {} : { draft_graph_ref: moved(record.proposal.draft_graph_ref) }),
    proposal_state: "draft",
    install_lane: "pending",
    updated_at: at,
  });
  await put({ proposal, revision, lint: record.lint });
  return added;
}

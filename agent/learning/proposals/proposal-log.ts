import { z } from "zod";
import { SkillBundleProposalSchema, type SkillBundleProposal } from "../../../shared/skills/proposal";
import { AppError } from "../../errors/app-error";
import type { MemoryStore } from "../../memory/memory-store";
import { checkedBy, createLogViewKeeper, openLogView, type LoadedLogView, type LogViewSpec } from "../../memory/log-view";
import { MemoryPaths } from "../../memory/memory-paths";

/** One line of `proposals.jsonl`: the proposal as it is after a change (last line per id wins). */
const LiveProposalRecordSchema = z.object({
  proposal: SkillBundleProposalSchema,
  revision: z.number().int().min(1),
  lint: z.object({
    passed: z.boolean(),
    findings: z.array(
      z.object({
        rule: z.enum(["CKP-001", "CKP-002", "CKP-003", "CKP-004", "CKP-005"]),
        checkpoint_id: z.string(),
        field: z.enum(["goal", "success_condition"]),
        message: z.string(),
      }),
    ),
    checked: z.number().int(),
  }),
});
type ProposalLogRecord = z.infer<typeof LiveProposalRecordSchema>;

/** A line is the proposal as it is now, or the tombstone its archive (§0C.16D, 14 days) leaves. */
const TombstoneSchema = z.object({ archived_proposal_id: z.string().uuid(), archived_at: z.string().datetime() });

/**
 * Which proposal a line of `proposals.jsonl` is a version of, or which one its tombstone removes.
 * The log keeps every version of every proposal: it is folded on this alone (a proposal version is
 * not checked against its schema here), and only the version that wins is parsed in full.
 */
function foldKeyOf(line: unknown): { id: string; live: boolean } | undefined {
  const proposal = typeof line === "object" && line !== null && "proposal" in line ? line.proposal : undefined;
  if (typeof proposal === "object" && proposal !== null && "proposal_id" in proposal && typeof proposal.proposal_id === "string")
    return { id: proposal.proposal_id, live: true };
  const tombstone = TombstoneSchema.safeParse(line);
  return tombstone.success ? { id: tombstone.data.archived_proposal_id, live: false } : undefined;
}

export type { ProposalLogRecord };

/** The live proposals, as `proposals.jsonl` says they are now (last line per id wins). */
export interface ProposalLog {
  /** The record of a proposal, or `PROPOSAL_NOT_FOUND`. */
  find(proposalId: string): ProposalLogRecord;
  /** Appends the record as the proposal's current state. */
  put(record: ProposalLogRecord): Promise<void>;
  /** Leaves the archive's tombstone (§0C.16D): the proposal is no longer live. */
  tombstone(proposalId: string, at: string): Promise<void>;
  all(): ProposalLogRecord[];
  /** A page of the live proposals, newest first, ordered by the view's marks: only the page's are read (issue 32). */
  page(page: number, pageSize: number): { records: ProposalLogRecord[]; total: number };
  /** The first live proposal (in the order the log first named them) of a session, if any: looked up, not searched for. */
  ofSession(sessionId: string): ProposalLogRecord | undefined;
  /** At the agent's stop: the log's view brought up to date (issue 32: the next start then reads no proposal). */
  settleView(): Promise<void>;
}

/** The draft revision folder a proposal currently points at. */
export const draftFolderOf = (proposal: SkillBundleProposal) => proposal.draft_skill_path.replace(/\/SKILL\.md$/, "");

/**
 * Issue 32: `proposals.jsonl` read through its current view (`proposals_current.json`, agent/memory/log-view.ts),
 * each proposal's session (the retention sweep looks a session's proposal up by it) and creation time
 * (the list's order) kept in the view's index.
 */
const proposalLogView: LogViewSpec<unknown> = {
  log: MemoryPaths.proposals,
  view: MemoryPaths.proposalsCurrent,
  line: z.unknown(),
  change(line, number) {
    const key = foldKeyOf(line);
    if (key === undefined)
      throw new AppError(
        "MEMORY_RECORD_CORRUPT",
        `A record in ${MemoryPaths.proposals} is not valid (line ${number} of those folded is neither a proposal nor a tombstone).`,
      );
    return key.live ? { id: key.id, put: true, record: line } : { id: key.id, put: false };
  },
  marks: (_previous, line) => proposalMarksOf(line),
};

/**
 * A proposal version's marks, read from the line as folded (checked in full later, with the whole
 * version): the session it names ("" for none) and when it was created ("" if it does not say).
 */
function proposalMarksOf(line: unknown): string[] {
  const proposal = typeof line === "object" && line !== null && "proposal" in line ? line.proposal : undefined;
  const field = (name: string) => {
    const value = typeof proposal === "object" && proposal !== null && name in proposal ? (proposal as Record<string, unknown>)[name] : undefined;
    return typeof value === "string" ? value : "";
  };
  return [field("learn_session_id"), field("created_at")];
}

/** The winning version of a proposal, parsed in full; a version that does not match stops the agent. */
const checkProposal = checkedBy(LiveProposalRecordSchema, MemoryPaths.proposals, "proposal");

/**
 * The live proposals. The log keeps every version of every proposal; start-up reads its view and
 * the lines the log gained since, and only the versions that came from those lines are parsed in
 * full then; a proposal the view file kept is parsed and checked the first time it is read. A
 * current view's index is itself read at the first call that needs the proposals (`openLogView`).
 */
export async function openProposalLog(memory: MemoryStore): Promise<ProposalLog> {
  const read = await openLogView(memory, proposalLogView, checkProposal);
  let kept: ReturnType<typeof indexed> | undefined;
  const state = () => (kept ??= indexed(read()));
  const view = createLogViewKeeper(memory, proposalLogView, checkProposal);
  return {
    find(proposalId) {
      const record = state().records.get(proposalId);
      if (record === undefined) throw new AppError("PROPOSAL_NOT_FOUND", `No proposal ${proposalId}.`);
      return record;
    },
    async put(record) {
      const { records, marks, index } = state();
      await memory.append(MemoryPaths.proposals, record);
      const { proposal_id: proposalId, learn_session_id: sessionId } = record.proposal;
      records.set(proposalId, record);
      marks.set(proposalId, [sessionId ?? "", record.proposal.created_at]);
      index(proposalId, sessionId);
      await view.noteAppend();
    },
    async tombstone(proposalId, at) {
      const { records, marks, bySession } = state();
      await memory.append(MemoryPaths.proposals, { archived_proposal_id: proposalId, archived_at: at });
      // Its session from the index: a proposal archived unread is not parsed for it.
      const [sessionId] = marks.get(proposalId) ?? [];
      records.delete(proposalId);
      marks.delete(proposalId);
      if (sessionId !== undefined) bySession.get(sessionId)?.delete(proposalId);
      await view.noteAppend();
    },
    ofSession(sessionId) {
      const { records, bySession } = state();
      // A proposal whose later version names another session is still indexed under the first: checked here.
      for (const proposalId of bySession.get(sessionId) ?? []) {
        const record = records.get(proposalId);
        if (record?.proposal.learn_session_id === sessionId) return record;
      }
      return undefined;
    },
    all: () => [...state().records.values()],
    page(page, pageSize) {
      const { records, marks } = state();
      const ordered = [...records.keys()]
        .map((proposalId) => ({ proposalId, createdAt: marks.get(proposalId)?.[1] ?? "" }))
        .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
      const onPage = ordered.slice((page - 1) * pageSize, page * pageSize).map(({ proposalId }) => records.get(proposalId) as ProposalLogRecord);
      return { records: onPage, total: ordered.length };
    },
    settleView: () => view.settle(),
  };
}

/** The live proposals and their marks, with each session's proposals indexed (the retention sweep does not search every proposal for each session). */
function indexed({ records, marks }: LoadedLogView<ProposalLogRecord>) {
  const bySession = new Map<string, Set<string>>();
  const index = (proposalId: string, sessionId: string | undefined) => {
    if (sessionId === undefined) return;
    const ids = bySession.get(sessionId) ?? new Set<string>();
    bySession.set(sessionId, ids.add(proposalId));
  };
  marks.forEach(([sessionId], proposalId) => index(proposalId, sessionId === "" ? undefined : sessionId));
  return { records, marks, bySession, index };
}

import { PracticeReportSchema } from "../../../shared/learning/sessions/practice";
import { LearnHistoryResponseSchema, LearnReceiptsResponseSchema } from "../../../shared/learning/route-contracts";
import { UseAsExampleRequestSchema, UseAsExampleResponseSchema } from "../../../shared/learning/proposals/skill-example";
import { SessionSeedResponseSchema } from "../../../shared/learning/sessions/trace-seed";
import { pageQuery, requestBody, SLOW, type AgentTransport, type Input } from "../transport/agent-transport";
import { sessionPath as session } from "./sessions";

/** What was learned before, and learning from it: history, receipts, practice reports, seeds, examples. */
export function historyRoutes({ call }: AgentTransport) {
  return {
    history: (pageNumber = 1, pageSize = 50) => call("GET", `/api/learn/history?${pageQuery(pageNumber, pageSize)}`, LearnHistoryResponseSchema),
    receipts: (pageNumber = 1, pageSize = 50, sessionId?: string) =>
      call(
        "GET",
        `/api/learn/receipts?${pageQuery(pageNumber, pageSize)}${sessionId === undefined ? "" : `&session_id=${encodeURIComponent(sessionId)}`}`,
        LearnReceiptsResponseSchema,
      ),
    practiceReport: (id: string) => call("GET", `${session(id)}/practice`, PracticeReportSchema),
    /** Learn From This (§0B.6): what a session was seeded with. */
    sessionSeed: (id: string) => call("GET", `${session(id)}/seed`, SessionSeedResponseSchema),
    /** Use as Example (§0B.6): a new revision of a proposal, or a proposal for a skill's next version. */
    useAsExample: (request: Input<typeof UseAsExampleRequestSchema>) =>
      call("POST", "/api/learn/examples", UseAsExampleResponseSchema, requestBody(UseAsExampleRequestSchema, request), SLOW),
  };
}

import { CreateLearnSessionRequestSchema, CreateLearnSessionResponseSchema } from "../../../shared/learning/sessions/create-learn-session";
import {
  AnswerQuestionsRequestSchema,
  AnswerQuestionsResponseSchema,
  DeleteSessionResponseSchema,
  GenerateProposalResponseSchema,
  LearnSessionDetailResponseSchema,
  LearnSessionsListResponseSchema,
  MarkGoalRequestSchema,
  MarkStepRequestSchema,
  SessionActionResponseSchema,
  SetTestPolicyRequestSchema,
  StartSessionResponseSchema,
  StopSessionResponseSchema,
} from "../../../shared/learning/route-contracts";
import { pageQuery, requestBody, SLOW, type AgentTransport, type EventStreamInit, type Input } from "../transport/agent-transport";

export const sessionPath = (id: string) => `/api/learn/sessions/${encodeURIComponent(id)}`;

/** Learn sessions (§0C.16A): create, list, the lifecycle, marks, questions, the proposal, live events. */
export function sessionRoutes({ call, openEvents }: AgentTransport) {
  const session = sessionPath;
  return {
    createSession: (request: Input<typeof CreateLearnSessionRequestSchema>) =>
      call("POST", "/api/learn/sessions", CreateLearnSessionResponseSchema, requestBody(CreateLearnSessionRequestSchema, request)),
    listSessions: (pageNumber = 1, pageSize = 50) => call("GET", `/api/learn/sessions?${pageQuery(pageNumber, pageSize)}`, LearnSessionsListResponseSchema),
    sessionDetail: (id: string) => call("GET", `${session(id)}/detail`, LearnSessionDetailResponseSchema),
    startSession: (id: string) => call("POST", `${session(id)}/start`, StartSessionResponseSchema, {}),
    pauseSession: (id: string) => call("POST", `${session(id)}/pause`, SessionActionResponseSchema, {}),
    resumeSession: (id: string) => call("POST", `${session(id)}/resume`, SessionActionResponseSchema, {}),
    stopSession: (id: string) => call("POST", `${session(id)}/stop`, StopSessionResponseSchema, {}),
    cancelSession: (id: string, reason?: string) => call("POST", `${session(id)}/cancel`, SessionActionResponseSchema, reason === undefined ? {} : { reason }),
    deleteSession: (id: string) => call("DELETE", session(id), DeleteSessionResponseSchema),
    markGoal: (id: string, request: Input<typeof MarkGoalRequestSchema>) =>
      call("POST", `${session(id)}/mark-goal`, SessionActionResponseSchema, requestBody(MarkGoalRequestSchema, request)),
    markStep: (id: string, request: Input<typeof MarkStepRequestSchema>) =>
      call("POST", `${session(id)}/mark-step`, SessionActionResponseSchema, requestBody(MarkStepRequestSchema, request)),
    setTestPolicy: (id: string, request: Input<typeof SetTestPolicyRequestSchema>) =>
      call("POST", `${session(id)}/set-test-policy`, SessionActionResponseSchema, requestBody(SetTestPolicyRequestSchema, request)),
    answerQuestions: (id: string, request: Input<typeof AnswerQuestionsRequestSchema>) =>
      call("POST", `${session(id)}/answer-questions`, AnswerQuestionsResponseSchema, requestBody(AnswerQuestionsRequestSchema, request), SLOW),
    generateProposal: (id: string) => call("POST", `${session(id)}/generate-proposal`, GenerateProposalResponseSchema, {}, SLOW),
    /**
     * `GET …/events` (§0C.16C): the SSE stream, read with fetch because it needs the bearer header
     * (EventSource cannot send one, and the token never goes into a URL). Resolves with the open
     * response once the agent accepted; the caller reads the body and aborts through `signal`.
     */
    openSessionEvents: (id: string, init: EventStreamInit) => openEvents(`${session(id)}/events`, init),
  };
}

import { CoachingAnswerRequestSchema, CoachingSetupSchema, CoachingShownRequestSchema, CoachingStateSchema } from "../../../shared/learning/sessions/coaching";
import { requestBody, type AgentTransport, type Input } from "../transport/agent-transport";
import { sessionPath as session } from "./sessions";

/** Coaching Agent (issue #16): its steps, turns and answers. */
export function coachingRoutes({ call }: AgentTransport) {
  return {
    coachingState: (id: string) => call("GET", `${session(id)}/coaching`, CoachingStateSchema),
    setUpCoaching: (id: string, request: Input<typeof CoachingSetupSchema>) =>
      call("POST", `${session(id)}/coaching`, CoachingStateSchema, requestBody(CoachingSetupSchema, request)),
    answerCoaching: (id: string, request: Input<typeof CoachingAnswerRequestSchema>) =>
      call("POST", `${session(id)}/coaching/answer`, CoachingStateSchema, requestBody(CoachingAnswerRequestSchema, request)),
    coachingShown: (id: string, request: Input<typeof CoachingShownRequestSchema>) =>
      call("POST", `${session(id)}/coaching/shown`, CoachingStateSchema, requestBody(CoachingShownRequestSchema, request)),
  };
}

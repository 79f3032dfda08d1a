import { z } from "zod";
import { LearnSessionSchema } from "../../../shared/learning/sessions/learn-session";
import { TestPolicySchema } from "../../../shared/learning/sessions/test-policy";

/**
 * One line of `sessions.jsonl`: the session as it is after a change (the last line per id wins),
 * or the tombstone a delete or an archive (§0C.16D) leaves. The agent folds the log at start.
 */
export const SessionLogRecordSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("put"), session: LearnSessionSchema }),
  z.object({ op: z.literal("delete"), learn_session_id: z.string().uuid(), deleted_at: z.string().datetime() }),
]);
export type SessionLogRecord = z.infer<typeof SessionLogRecordSchema>;

/** One line of `test_policies.jsonl`: a policy set on a session (§0C.14); `test_policy_ref` points at it. */
export const TestPolicyRecordSchema = z.object({
  learn_session_id: z.string().uuid(),
  test_policy: TestPolicySchema,
  created_at: z.string().datetime(),
});
export type TestPolicyRecord = z.infer<typeof TestPolicyRecordSchema>;

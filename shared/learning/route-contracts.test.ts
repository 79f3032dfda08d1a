import { describe, it, expect } from "vitest";
import {
  AnswerQuestionsRequestSchema,
  DeleteSessionResponseSchema,
  LearnSessionEventSchema,
  LearnSessionsListResponseSchema,
  MarkStepRequestSchema,
  PaginationQuerySchema,
  ProposalInstallRequestSchema,
  AbilityPromoteSharedResponseSchema,
  AbilityQuarantineResponseSchema,
  StopSessionResponseSchema,
} from "./route-contracts";
import { RejectProposalRequestSchema, StartValidationRunRequestSchema, InstallProposalRequestSchema } from "./compat-aliases";
import { CheckpointVerificationReceiptSchema } from "./checkpoints/checkpoint-receipt";
import { LearningReceiptSchema } from "./sessions/receipts";
import { LearnStreamEventKindSchema } from "./sessions/lifecycle-event";

const session = {
  learn_session_id: "6f1c2a0e-8a3b-4c1d-9e2f-0a1b2c3d4e5f",
  entry_mode: "demonstrating_skill",
  state: "stopped",
  created_at: "2025-01-01T10:00:00Z",
  updated_at: "2025-01-01T10:05:00Z",
  schema_version: 1,
};

describe("session routes (§0C.16A)", () => {
  it("parses a stop response and refuses an unknown next_action", () => {
    const ok = StopSessionResponseSchema.safeParse({ session, captured_event_count: 12, next_action: "generate_proposal" });
    expect(ok.success).toBe(true);
    expect(StopSessionResponseSchema.safeParse({ session, captured_event_count: 12, next_action: "install" }).success).toBe(false);
    expect(StopSessionResponseSchema.safeParse({ session, captured_event_count: -1, next_action: "cancel" }).success).toBe(false);
  });

  it("defaults a mark-step hint to action", () => {
    expect(MarkStepRequestSchema.parse({ step_label: "Open the export dialog" }).step_kind_hint).toBe("action");
  });

  it("refuses an answer-questions body with no answers", () => {
    expect(AnswerQuestionsRequestSchema.safeParse({ answers: [] }).success).toBe(false);
  });

  it("only accepts `deleted: true` from the delete route", () => {
    expect(DeleteSessionResponseSchema.safeParse({ deleted: true }).success).toBe(true);
    expect(DeleteSessionResponseSchema.safeParse({ deleted: false }).success).toBe(false);
  });

  it("names the list response of GET /api/learn/sessions and bounds page_size", () => {
    const list = { sessions: [session], total: 1, page: 1, page_size: 20 };
    expect(LearnSessionsListResponseSchema.parse(list).sessions[0]?.observation_mode).toBe("none");
    expect(LearnSessionsListResponseSchema.safeParse({ ...list, page_size: 101 }).success).toBe(false);
  });
});

describe("PaginationQuerySchema", () => {
  it("coerces query-string numbers and applies defaults", () => {
    expect(PaginationQuerySchema.parse({})).toEqual({ page: 1, page_size: 20 });
    expect(PaginationQuerySchema.parse({ page: "3", page_size: "50" })).toEqual({ page: 3, page_size: 50 });
  });

  it("rejects page 0 and page_size over 100", () => {
    expect(PaginationQuerySchema.safeParse({ page: "0" }).success).toBe(false);
    expect(PaginationQuerySchema.safeParse({ page_size: "101" }).success).toBe(false);
    expect(PaginationQuerySchema.safeParse({ page: "two" }).success).toBe(false);
  });
});

describe("proposal routes", () => {
  it("does not let install jump straight to shared_promoted", () => {
    expect(ProposalInstallRequestSchema.safeParse({ install_lane: "experimental_private" }).success).toBe(true);
    expect(ProposalInstallRequestSchema.safeParse({ install_lane: "shared_promoted" }).success).toBe(false);
  });

  it("keeps the §0C.28 install alias identical to the canonical schema", () => {
    expect(InstallProposalRequestSchema).toBe(ProposalInstallRequestSchema);
  });

  it("requires a reason to reject and refuses unknown keys (§0C.28 strict)", () => {
    expect(RejectProposalRequestSchema.safeParse({ reason: "", schema_version: 1 }).success).toBe(false);
    expect(RejectProposalRequestSchema.safeParse({ reason: "wrong site", schema_version: 1, extra: 1 }).success).toBe(false);
    expect(StartValidationRunRequestSchema.parse({ schema_version: 1 }).selected_tests).toEqual([]);
  });
});

describe("ability command responses", () => {
  it("pins the literal values of the route table", () => {
    expect(AbilityPromoteSharedResponseSchema.safeParse({ ability_id: "a", install_lane: "approved_workspace" }).success).toBe(false);
    expect(AbilityQuarantineResponseSchema.safeParse({ ability_id: "a", quarantined: true }).success).toBe(false);
    expect(AbilityQuarantineResponseSchema.safeParse({ ability_id: "a", quarantined: true, reason: "checkpoint failures" }).success).toBe(true);
  });
});

describe("events and receipts", () => {
  it("parses an SSE data payload and defaults payload to {}", () => {
    const event = LearnSessionEventSchema.parse({
      event_kind: "learn.capture.started",
      session_id: session.learn_session_id,
      timestamp: "2025-01-01T10:00:01Z",
    });
    expect(event.payload).toEqual({});
  });

  it("streams checkpoint outcomes, error and the session changes a panel must hear of, but not other receipt kinds", () => {
    expect(LearnStreamEventKindSchema.safeParse("checkpoint.reached").success).toBe(true);
    expect(LearnStreamEventKindSchema.safeParse("error").success).toBe(true);
    expect(LearnStreamEventKindSchema.safeParse("learn.session.cancelled").success).toBe(true);
    expect(LearnStreamEventKindSchema.safeParse("migration_backfill").success).toBe(false);
  });

  it("records a TTL cancel as a learn.session.cancelled receipt with its reason (§0C.16D)", () => {
    const receipt = LearningReceiptSchema.safeParse({
      receipt_id: "1d2e3f40-5a6b-4c7d-8e9f-a0b1c2d3e4f5",
      receipt_kind: "learn.session.cancelled",
      learn_session_id: session.learn_session_id,
      reason: "session_timeout",
      created_at: "2025-01-01T11:00:00Z",
      schema_version: 1,
    });
    expect(receipt.success).toBe(true);
    expect(LearningReceiptSchema.safeParse({ ...receipt.data, receipt_kind: "session_started" }).success).toBe(false);
  });

  it("refuses a checkpoint receipt tied to neither a session nor a dispatch", () => {
    const base = {
      receipt_id: "1d2e3f40-5a6b-4c7d-8e9f-a0b1c2d3e4f5",
      checkpoint_id: "cp-01",
      status: "reached",
      evidence: "Export dialog visible",
      created_at: "2025-01-01T10:03:00Z",
      schema_version: 1,
    };
    expect(CheckpointVerificationReceiptSchema.safeParse(base).success).toBe(false);
    expect(CheckpointVerificationReceiptSchema.safeParse({ ...base, dispatch_id: "dispatch-7" }).success).toBe(true);
    expect(CheckpointVerificationReceiptSchema.safeParse({ ...base, learn_session_id: session.learn_session_id, status: "pending" }).success).toBe(false);
  });
});

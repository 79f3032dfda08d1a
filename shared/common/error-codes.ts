import { z } from "zod";

/**
 * Every error code the agent can answer with, and its HTTP status. One table (STYLE habit 4):
 * §0C.16B's learning codes, §0C.28's `DOC3AdditionalErrorCodeSchema`, and the codes of our own
 * foundation (security guard §0A.32, request validation, the memory store) that the spec leaves
 * unnamed.
 */
export const ERROR_CODE_TABLE = {
  // §0C.16B
  LEARN_SESSION_ALREADY_ACTIVE: { http: 409, retryable: false },
  INVALID_LEARN_STATE_TRANSITION: { http: 400, retryable: false },
  LEARN_SESSION_NOT_FOUND: { http: 404, retryable: false },
  PROPOSAL_NOT_FOUND: { http: 404, retryable: false },
  ABILITY_NOT_FOUND: { http: 404, retryable: false },
  VALIDATION_IN_PROGRESS: { http: 409, retryable: true },
  INSUFFICIENT_TRACES: { http: 400, retryable: false },
  ADAPTER_UNAVAILABLE: { http: 503, retryable: true },
  INSTALL_LANE_DENIED: { http: 403, retryable: false },
  BRIDGE_REBUILD_FAILED: { http: 500, retryable: true },
  TEST_POLICY_VIOLATION: { http: 400, retryable: false },
  CHECKPOINT_LINT_FAILED: { http: 400, retryable: false },
  SESSION_TIMEOUT: { http: 408, retryable: false },
  // §0C.28 DOC3AdditionalErrorCodeSchema
  CAPTURE_ALREADY_STOPPED: { http: 409, retryable: false },
  CATEGORY_LIMIT_REACHED: { http: 409, retryable: false },
  // §0C.20 skill import (the five upload codes are the spec's; the others name what it leaves open)
  SKILL_IMPORT_FILE_TOO_LARGE: { http: 413, retryable: false },
  SKILL_IMPORT_UNSUPPORTED_MIME: { http: 415, retryable: false },
  SKILL_IMPORT_UNSUPPORTED_EXTENSION: { http: 415, retryable: false },
  SKILL_IMPORT_ARCHIVE_REQUIRED: { http: 400, retryable: false },
  SKILL_IMPORT_UPLOAD_EXPIRED: { http: 410, retryable: false },
  SKILL_IMPORT_ARCHIVE_UNSAFE: { http: 400, retryable: false },
  SKILL_IMPORT_NOT_FOUND: { http: 404, retryable: false },
  SKILL_IMPORT_UPLOAD_NOT_FOUND: { http: 404, retryable: false },
  SKILL_IMPORT_UPLOAD_IN_USE: { http: 409, retryable: true },
  INVALID_SKILL_IMPORT_TRANSITION: { http: 409, retryable: false },
  SKILL_PACK_NOT_FOUND: { http: 404, retryable: false },
  // §0C.21 categories
  CATEGORY_NOT_FOUND: { http: 404, retryable: false },
  // Runs of installed abilities (issue #21): what §0C.16B has no code for.
  RUN_NOT_FOUND: { http: 404, retryable: false },
  ABILITY_NOT_RUNNABLE: { http: 409, retryable: false },
  RUN_NOT_ACTIVE: { http: 409, retryable: false },
  RUN_CONFIRMATION_MISMATCH: { http: 409, retryable: false },
  RUN_LIMIT_REACHED: { http: 429, retryable: true },
  // Runs on a schedule (issue #33): a skill that cannot run unattended, a schedule that is not there.
  ABILITY_NOT_SCHEDULABLE: { http: 409, retryable: false },
  SCHEDULE_NOT_FOUND: { http: 404, retryable: false },
  // Standing approvals (issue #33): a grant the ability does not have.
  RUN_GRANT_NOT_FOUND: { http: 404, retryable: false },
  // Learn From This (§0B.6, issue #16): a trace a session cannot start from.
  RUN_NOT_FINISHED: { http: 409, retryable: true },
  RECEIPT_NOT_FOUND: { http: 404, retryable: false },
  // Coaching Agent (issue #16): an answer to a turn that is not the one waiting for it.
  COACHING_TURN_MISMATCH: { http: 409, retryable: false },
  // Security guard (§0A.32 "fail closed"; DESIGN §4)
  AUTH_REQUIRED: { http: 401, retryable: false },
  AUTH_INVALID: { http: 401, retryable: false },
  HOST_NOT_ALLOWED: { http: 403, retryable: false },
  ORIGIN_NOT_ALLOWED: { http: 403, retryable: false },
  TOKEN_IN_URL_REJECTED: { http: 400, retryable: false },
  // Observation ingest (DESIGN §4): an event that carries what masking should have removed.
  OBSERVATION_NOT_MASKED: { http: 400, retryable: false },
  SNAPSHOT_INVALID: { http: 400, retryable: false },
  // Requests
  REQUEST_INVALID: { http: 400, retryable: false },
  ROUTE_NOT_FOUND: { http: 404, retryable: false },
  METHOD_NOT_ALLOWED: { http: 405, retryable: false },
  PAYLOAD_TOO_LARGE: { http: 413, retryable: false },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, retryable: false },
  // Memory store (DESIGN §5)
  MEMORY_PATH_INVALID: { http: 400, retryable: false },
  MEMORY_LOCKED: { http: 503, retryable: true },
  MEMORY_WRITE_FAILED: { http: 507, retryable: true },
  MEMORY_RECORD_CORRUPT: { http: 500, retryable: false },
  INTERNAL_ERROR: { http: 500, retryable: true },
} as const satisfies Record<string, { http: number; retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_CODE_TABLE;

export const ErrorCodeSchema = z.enum(Object.keys(ERROR_CODE_TABLE) as [ErrorCode, ...ErrorCode[]]);

/** §0C.28 — kept under the spec's name; its values are rows of the table above. */
export const DOC3AdditionalErrorCodeSchema = z.enum(["CAPTURE_ALREADY_STOPPED", "CATEGORY_LIMIT_REACHED"]);
export type DOC3AdditionalErrorCode = z.infer<typeof DOC3AdditionalErrorCodeSchema>;

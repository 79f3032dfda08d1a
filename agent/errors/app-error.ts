import { ERROR_CODE_TABLE, type ErrorCode } from "../../shared/common/error-codes";
import type { ApiErrorIssue } from "../../shared/common/error-envelope";

export interface AppErrorOptions {
  cause?: unknown;
  /** Fields the envelope may carry besides `error` (§0C.1B `active_session_id`, 400 `issues`). */
  activeSessionId?: string;
  issues?: ApiErrorIssue[];
}

/**
 * The one error class of the agent (STYLE habit 4). Its code picks the HTTP status and
 * retryability from the shared table; its message is shown to the client for 4xx, so it must say
 * what to fix and never carry a request value.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly httpStatus: number;
  readonly retryable: boolean;
  readonly activeSessionId: string | undefined;
  readonly issues: ApiErrorIssue[] | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.httpStatus = ERROR_CODE_TABLE[code].http;
    this.retryable = ERROR_CODE_TABLE[code].retryable;
    this.activeSessionId = options.activeSessionId;
    this.issues = options.issues;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

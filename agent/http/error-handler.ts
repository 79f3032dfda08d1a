import type { FastifyError, FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from "fastify-type-provider-zod";
import type { ApiErrorIssue, ApiErrorResponse } from "../../shared/common/error-envelope";
import { AppError, isAppError } from "../errors/app-error";

const FASTIFY_CODE_TO_APP: Record<string, () => AppError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => new AppError("PAYLOAD_TOO_LARGE", "The request body is too large."),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the request body as application/json."),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new AppError("REQUEST_INVALID", "The JSON body is empty."),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new AppError("REQUEST_INVALID", "The Content-Length header is wrong."),
};

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Turns anything thrown during a request into a coded error; unknown errors become 500s. */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  if (!(error instanceof Error)) {
    return new AppError("INTERNAL_ERROR", "The agent hit an internal error.", { cause: error });
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const issues: ApiErrorIssue[] = error.validation.slice(0, 20).map((issue) => ({
      path: truncate(`${error.validationContext ?? "request"}${issue.instancePath || ""}`, 240),
      message: truncate(issue.message ?? "invalid", 240),
    }));
    return new AppError("REQUEST_INVALID", `The request ${error.validationContext ?? "input"} is not valid; see issues.`, {
      issues,
      cause: error,
    });
  }
  if (isResponseSerializationError(error)) {
    return new AppError("INTERNAL_ERROR", "The agent produced an invalid response.", { cause: error });
  }
  const code = (error as FastifyError).code;
  const mapped = code === undefined ? undefined : FASTIFY_CODE_TO_APP[code];
  if (mapped !== undefined) return mapped();
  const status = (error as FastifyError).statusCode;
  if (error instanceof SyntaxError || (status === 400 && code?.startsWith("FST_ERR_CTP") === true)) {
    return new AppError("REQUEST_INVALID", "The request body is not valid JSON.");
  }
  if (status === 405) return new AppError("METHOD_NOT_ALLOWED", "This method is not allowed here.");
  return new AppError("INTERNAL_ERROR", "The agent hit an internal error.", { cause: error });
}

export function toEnvelope(error: AppError, correlationId: string): ApiErrorResponse {
  return {
    error: {
      code: error.code,
      message: truncate(error.message, 240),
      retryable: error.retryable,
      correlation_id: correlationId,
    },
    ...(error.activeSessionId === undefined ? {} : { active_session_id: error.activeSessionId }),
    ...(error.issues === undefined ? {} : { issues: error.issues }),
  };
}

/** STYLE habit 4: one handler, the spec's envelope; 4xx say what to fix, 5xx hide internals. */
export const errorHandler = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((raw, request, reply) => {
      const error = toAppError(raw);
      if (error.httpStatus >= 500) {
        request.log.error({ err: raw, code: error.code }, "request failed");
      } else {
        request.log.info({ code: error.code }, "request rejected");
      }
      return reply.status(error.httpStatus).send(toEnvelope(error, request.id));
    });
    app.setNotFoundHandler((request, reply) => {
      const error = new AppError("ROUTE_NOT_FOUND", `No route ${request.method} ${request.url.split("?")[0] ?? ""}.`);
      return reply.status(error.httpStatus).send(toEnvelope(error, request.id));
    });
  },
  { name: "error-handler" },
);

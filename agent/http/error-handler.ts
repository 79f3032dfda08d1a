import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from "fastify-type-provider-zod";
import type { ApiErrorIssue, ApiErrorResponse } from "../../shared/common/error-envelope";
import { AppError, isAppError } from "../errors/app-error";

const FASTIFY_CODE_TO_APP: Record<string, () => AppError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => new AppError("PAYLOAD_TOO_LARGE", "The request body is too large."),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the request body as application/json."),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new AppError("REQUEST_INVALID", "The JSON body is empty."),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new AppError("REQUEST_INVALID", "The Content-Length header is wrong."),
  // A body-carrying method (QUERY, …) without a Content-Type header: fastify's 400, not an internal error.
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: () => new AppError("REQUEST_INVALID", "Send a Content-Type header (application/json) with this method."),
  // Raised by the router before any route runs (see frameworkErrors below).
  FST_ERR_BAD_URL: () => new AppError("REQUEST_INVALID", "The URL is not valid percent-encoding."),
  FST_ERR_MAX_PARAM_LENGTH: () => new AppError("REQUEST_INVALID", "A path parameter is too long."),
};

/** What a fastify 4xx that has no row above means; its own message may quote the request, so it is not reused. */
const FASTIFY_STATUS_TO_APP: Record<number, () => AppError> = {
  404: () => new AppError("ROUTE_NOT_FOUND", "No such route."),
  405: () => new AppError("METHOD_NOT_ALLOWED", "This method is not allowed here."),
  413: () => new AppError("PAYLOAD_TOO_LARGE", "The request body is too large."),
  415: () => new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the request body as application/json."),
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
  // Any other fastify 4xx is the client's mistake: answering it as a 500 would blame the agent.
  if (code?.startsWith("FST_ERR") === true && status !== undefined && status >= 400 && status < 500) {
    return FASTIFY_STATUS_TO_APP[status]?.() ?? new AppError("REQUEST_INVALID", "The request is not valid for this route.");
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

/**
 * Fastify's `frameworkErrors`: a URL the router cannot decode (`%zz`, `%c0%af`) or a path parameter
 * over its length limit is answered before any route or hook runs, by default with fastify's own
 * body that quotes the URL back. It gets the envelope like every other refusal.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const appError = toAppError(error);
  request.log.info({ code: appError.code }, "request rejected by the router");
  void reply.status(appError.httpStatus).send(toEnvelope(appError, request.id));
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses (headers or URL over 16 KB,
 * a bare LF, an invalid header character) never becomes a request. It still gets an envelope
 * (without a correlation id: there is no request to name) before the connection is closed.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const message =
    error.code === "HPE_HEADER_OVERFLOW"
      ? "The request line or headers are too large (16 KB at most)."
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? "The request was not sent in time."
        : "The request is not valid HTTP.";
  const appError = new AppError("REQUEST_INVALID", message);
  const body = JSON.stringify({ error: { code: appError.code, message: appError.message, retryable: appError.retryable } } satisfies ApiErrorResponse);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${appError.httpStatus} Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
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

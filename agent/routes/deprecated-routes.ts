import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { isTerminalLearnSessionState } from "../../shared/learning/sessions/learn-session";
import { AppError } from "../errors/app-error";
import type { SessionService } from "../learning/sessions/session-service";

export interface DeprecatedRoutesOptions {
  sessions: SessionService;
}

/**
 * §0C.16 / §0C.28: a redirect, never a 301 — browsers and fetch turn a 301 POST into a GET and
 * drop its body; 308 keeps both.
 */
const PERMANENT_REDIRECT = 308;

/** The body of every redirect; a client reads `Location`. */
const RedirectBodySchema = z.object({}).strict();

/** Every id that goes into a `Location` is a uuid, so a redirect can never carry `..` or `/`. */
const ProposalParamsSchema = z.object({ id: z.string().uuid() });
const SessionParamsSchema = z.object({ sessionId: z.string().uuid() });
/** The rest of a singular session path: plain lower-case route words, as all canonical ones are. */
const SessionRestParamsSchema = SessionParamsSchema.extend({
  "*": z.string().regex(/^[a-z0-9-]{1,64}(\/[a-z0-9-]{1,64}){0,3}$/, "must be a route name such as detail or mark-step"),
});
/**
 * The legacy promote body names the ability; ability ids are plain names, not uuids (§0C.16A
 * `ability_id: string`). Other fields pass through untouched: the client re-sends the body.
 */
const LegacyPromoteBodySchema = z.looseObject({
  ability_id: z
    .string()
    .regex(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,159}$/, "must be a plain ability id")
    .refine((id) => !id.includes(".."), "must be a plain ability id"),
});

/** The legacy mining routes' last word and the canonical proposal route it became (§0C.20B). */
const PROPOSAL_ACTIONS = [
  ["test", "validate"],
  ["install-experimental", "install"],
  ["feedback", "revise"],
] as const;

/** RFC 3986 query characters: a query made only of these is safe to copy into a header as it is. */
const PLAIN_QUERY = /^[A-Za-z0-9\-._~%!$&'()*+,;=:@/?]*$/;

/** The request's query string, kept as sent when it is plain, else re-encoded (never raw into a header). */
function queryOf(request: FastifyRequest): string {
  const at = request.url.indexOf("?");
  if (at < 0) return "";
  const raw = request.url.slice(at + 1);
  const query = PLAIN_QUERY.test(raw) ? raw : new URLSearchParams(raw).toString();
  return query.length === 0 ? "" : `?${query}`;
}

function redirect(request: FastifyRequest, reply: FastifyReply, canonicalPath: string) {
  return reply
    .status(PERMANENT_REDIRECT)
    .header("location", `${canonicalPath}${queryOf(request)}`)
    .send({});
}

/**
 * Deprecated route prefixes (§0C.16, §0C.20B): `/api/capabilities/teach/*`, `/api/capabilities/promote`,
 * `/api/skills/mining/*` and the singular `/api/learn/session/*` answer 308 to their canonical
 * route. They sit behind the same request guard as every other route: no token, no redirect.
 */
export const deprecatedRoutes: FastifyPluginAsyncZod<DeprecatedRoutesOptions> = async (app, { sessions }) => {
  const redirectSchema = { response: { [PERMANENT_REDIRECT]: RedirectBodySchema } };

  /** The one session that is not finished (§0C.1B allows no second), which the teach routes meant. */
  const activeSessionId = (): string => {
    const active = sessions.all().find((session) => !isTerminalLearnSessionState(session.state));
    if (active === undefined) throw new AppError("LEARN_SESSION_NOT_FOUND", "No learning session is open; start one first.");
    return active.learn_session_id;
  };

  // R11.2-47: teach/start became "create a session" (entry_mode demonstrating_skill is the body's).
  app.post("/api/capabilities/teach/start", { schema: redirectSchema }, async (request, reply) => redirect(request, reply, "/api/learn/sessions"));
  app.post("/api/capabilities/teach/cancel", { schema: redirectSchema }, async (request, reply) =>
    redirect(request, reply, `/api/learn/sessions/${activeSessionId()}/cancel`),
  );
  app.post("/api/capabilities/teach/finish", { schema: redirectSchema }, async (request, reply) =>
    redirect(request, reply, `/api/learn/sessions/${activeSessionId()}/stop`),
  );
  app.post("/api/capabilities/promote", { schema: { ...redirectSchema, body: LegacyPromoteBodySchema } }, async (request, reply) =>
    redirect(request, reply, `/api/abilities/${encodeURIComponent(request.body.ability_id)}/promote-shared`),
  );

  app.get("/api/skills/mining/proposals", { schema: redirectSchema }, async (request, reply) => redirect(request, reply, "/api/learn/proposals"));
  for (const [legacy, canonical] of PROPOSAL_ACTIONS) {
    app.post(`/api/skills/mining/proposals/:id/${legacy}`, { schema: { ...redirectSchema, params: ProposalParamsSchema } }, async (request, reply) =>
      redirect(request, reply, `/api/learn/proposals/${request.params.id}/${canonical}`),
    );
  }
  for (const legacy of ["questions", "answers"] as const) {
    app.post(`/api/skills/mining/proposals/:id/${legacy}`, { schema: { ...redirectSchema, params: ProposalParamsSchema } }, async (request, reply) => {
      // Questions are answered on the proposal's session; until proposals have their own store,
      // the session that names the proposal is the only place that link lives.
      const owner = sessions.all().find((session) => session.proposal_id === request.params.id);
      if (owner === undefined) throw new AppError("PROPOSAL_NOT_FOUND", "No learning session has this proposal.");
      return redirect(request, reply, `/api/learn/sessions/${owner.learn_session_id}/answer-questions`);
    });
  }

  // R11.2-48: the singular prefix, every method, mapped word for word onto the plural one.
  app.post("/api/learn/session/start", { schema: redirectSchema }, async (request, reply) => redirect(request, reply, "/api/learn/sessions"));
  app.all("/api/learn/session", { schema: redirectSchema }, async (request, reply) => redirect(request, reply, "/api/learn/sessions"));
  app.all("/api/learn/session/:sessionId", { schema: { ...redirectSchema, params: SessionParamsSchema } }, async (request, reply) =>
    redirect(request, reply, `/api/learn/sessions/${request.params.sessionId}`),
  );
  app.all("/api/learn/session/:sessionId/*", { schema: { ...redirectSchema, params: SessionRestParamsSchema } }, async (request, reply) =>
    redirect(request, reply, `/api/learn/sessions/${request.params.sessionId}/${request.params["*"]}`),
  );
};

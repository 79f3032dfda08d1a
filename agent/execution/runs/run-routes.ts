import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  ABILITY_ID_PATTERN,
  AbilityRunSpecSchema,
  CancelRunRequestSchema,
  ConfirmRunStepRequestSchema,
  DISPATCH_ID_PATTERN,
  RunListResponseSchema,
  RunResponseSchema,
  StartRunRequestSchema,
} from "../../../shared/execution/run-contract";
import { AppError } from "../../errors/app-error";
import type { RunService } from "./run-service";
import type { RunSpecSource } from "./run-spec";

export interface RunRoutesOptions {
  runs: RunService;
  specs: RunSpecSource;
}

const AbilityParamsSchema = z.object({ abilityId: z.string().regex(ABILITY_ID_PATTERN) });
const DispatchParamsSchema = z.object({ dispatchId: z.string().regex(DISPATCH_ID_PATTERN) });
const RunListQuerySchema = z.object({
  ability_id: z.string().regex(ABILITY_ID_PATTERN).optional(),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
});

/** The call path an assistant follows, said once and shown on every run route of the OpenAPI description. */
export const RUN_CALL_PATH =
  "Call path: `POST /api/abilities/lookup` (find) → pick a match that is `usable_now` → `GET /api/abilities/{abilityId}/run-spec` (its inputs: names, types, which are secret; its sites and checkpoints; whether it is runnable) → `POST /api/runs` with the input values (202: the run starts in the background) → follow `GET /api/runs/{dispatchId}/events` (SSE) or poll `GET /api/runs/{dispatchId}` → when the state is `needs_confirmation`, ask the person and send their answer to `POST /api/runs/{dispatchId}/confirm` → the result: `state` `succeeded` with every checkpoint `reached`, or `failed`/`cancelled` with `failure` (code, message, what the page showed) → `GET /api/dispatches/{dispatchId}/checkpoint-receipts` for the receipts.";

/** Each run route's schema and its words in the OpenAPI description. */
const SCHEMAS = {
  runSpec: {
    tags: ["runs"],
    summary: "What a run of this ability needs",
    description: `The step between lookup and run: the ability's inputs (name, label, type, \`secret\`, \`required\`), the sites its flow opens (a run touches only these and \`allowed_sites\`), its checkpoints and who verifies each, the steps that wait for the person's confirmation, its checkpoint health, and \`runnable\` with \`not_runnable_reason\` (no recorded flow, deactivated, quarantined, not installed by this agent). ${RUN_CALL_PATH}`,
    params: AbilityParamsSchema,
    response: { 200: AbilityRunSpecSchema },
  },
  start: {
    tags: ["runs"],
    summary: "Start a run of an installed ability",
    description: `Checks the request against the run-spec (unknown or missing inputs: REQUEST_INVALID; not runnable: ABILITY_NOT_RUNNABLE; \`where: user_tab\` with no extension connected: ADAPTER_UNAVAILABLE; a \`test_policy\` allowing sites beyond the ability's and \`allowed_sites\`: TEST_POLICY_VIOLATION; three runs going already: RUN_LIMIT_REACHED, 429), then answers 202 with the run in \`starting\` while it goes on in the background. Input values are used for this run and forgotten: never stored, logged or returned. Without a \`test_policy\` the run's policy is \`live_read_safe_write\` over the ability's sites and \`allowed_sites\` (200 actions at most, nothing sent to another origin, no DELETE request; a page's "are you sure?" is accepted only during a step the person confirmed); with one it is obeyed exactly. ${RUN_CALL_PATH}`,
    body: StartRunRequestSchema,
    response: { 202: RunResponseSchema },
  },
  list: {
    tags: ["runs"],
    summary: "Past and current runs, newest first",
    description: "Paginated (`page`, `page_size` ≤ 100); `ability_id` keeps the runs of one ability.",
    querystring: RunListQuerySchema,
    response: { 200: RunListResponseSchema },
  },
  oneRun: {
    tags: ["runs"],
    summary: "One run as it is now",
    description:
      "States: `starting`, `running`, `needs_confirmation` (see `pending_confirmation`), then one of `succeeded`, `failed`, `cancelled`, `interrupted` (the agent stopped during the run; it is never resumed). `failure.page_seen` says what the page showed where it stopped.",
    params: DispatchParamsSchema,
    response: { 200: RunResponseSchema },
  },
  confirm: {
    tags: ["runs"],
    summary: "The person's answer to a step with consequences",
    description:
      "Only while the run is `needs_confirmation`, with its `pending_confirmation.confirmation_id` (otherwise RUN_CONFIRMATION_MISMATCH, or RUN_NOT_ACTIVE once the run is over). `confirm` does the step; `decline` leaves it undone and ends the run `cancelled` with failure code CONFIRMATION_DECLINED. Unanswered for 10 minutes, the step is declined (CONFIRMATION_TIMED_OUT). Send only the person's own answer: an assistant must not confirm on their behalf. Issue #33: `always_allow` (with `confirm` only) also allows this step for good under the terms `pending_confirmation.grant_offer` shows — `inputs` `exact` (this run's non-secret values, kept as keyed hashes) or `any`, `consequence_classes` (every delete/pay class of the step must be ticked), optional `expires_at`; malformed terms, a class not ticked, a past expiry, `decline`, or a step without an offer answer REQUEST_INVALID and the run keeps waiting, nothing written. List and revoke grants at `/api/abilities/{abilityId}/grants`.",
    params: DispatchParamsSchema,
    body: ConfirmRunStepRequestSchema,
    response: { 200: RunResponseSchema },
  },
  cancel: {
    tags: ["runs"],
    summary: "Stop a run now",
    description: "The current step is abandoned and nothing after it runs; the run is `cancelled` in the answer. RUN_NOT_ACTIVE when it is already over.",
    params: DispatchParamsSchema,
    body: CancelRunRequestSchema,
    response: { 200: RunResponseSchema },
  },
  screenshot: {
    tags: ["runs"],
    summary: "The page where a run stopped short (PNG)",
    description: "The screenshot `failure.page_seen.screenshot_ref` points to; RUN_NOT_FOUND when the run kept none.",
    params: DispatchParamsSchema,
    produces: ["image/png"],
  },
};

/**
 * Issue #21: runs of installed abilities as a resource of the local API (routes listed in
 * shared/execution/run-contract.ts). Bodies of these routes are never logged (the agent's request
 * serializer logs method, path and status only), so input values stay out of the log.
 */
export const runRoutes: FastifyPluginAsyncZod<RunRoutesOptions> = async (app, { runs, specs }) => {
  app.get("/api/abilities/:abilityId/run-spec", { schema: SCHEMAS.runSpec }, async (request) => (await specs.resolve(request.params.abilityId)).spec);

  app.post("/api/runs", { schema: SCHEMAS.start }, async (request, reply) => {
    // Issue #33: only the agent's own scheduler marks a run as a schedule's.
    if (request.body.caller === "schedule")
      throw new AppError("REQUEST_INVALID", 'caller "schedule" is the agent\'s own scheduler; start a run as "api", "mcp" or "side_panel".', {
        issues: [{ path: "caller", message: 'Only the agent\'s scheduler starts runs as "schedule".' }],
      });
    const run = await runs.start(request.body);
    return reply.code(202).send({ run, schema_version: 1 as const });
  });

  app.get("/api/runs", { schema: SCHEMAS.list }, async (request) => {
    const { ability_id, page, page_size } = request.query;
    const { runs: list, total } = await runs.list({ ability_id, page, page_size });
    return { runs: list, total, page, page_size, schema_version: 1 as const };
  });

  app.get("/api/runs/:dispatchId", { schema: SCHEMAS.oneRun }, async (request) => ({
    run: await runs.get(request.params.dispatchId),
    schema_version: 1 as const,
  }));

  app.post("/api/runs/:dispatchId/confirm", { schema: SCHEMAS.confirm }, async (request) => ({
    run: await runs.confirm(request.params.dispatchId, request.body),
    schema_version: 1 as const,
  }));

  app.post("/api/runs/:dispatchId/cancel", { schema: SCHEMAS.cancel }, async (request) => ({
    run: await runs.cancel(request.params.dispatchId, request.body.reason),
    schema_version: 1 as const,
  }));

  app.get("/api/runs/:dispatchId/screenshot", { schema: SCHEMAS.screenshot }, async (request, reply) => {
    const bytes = await runs.screenshot(request.params.dispatchId);
    return reply.header("content-type", "image/png").header("cache-control", "no-store").send(bytes);
  });
};

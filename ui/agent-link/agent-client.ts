import { z } from "zod";
import { AgentHealthResponseSchema } from "../../shared/common/agent-health";
import { ApiErrorResponseSchema } from "../../shared/common/error-envelope";
import { PairingResponseSchema } from "../../shared/common/pairing";
import { ApproveProposalRequestSchema, RejectProposalRequestSchema } from "../../shared/learning/compat-aliases";
import {
  CreateLearnSessionRequestSchema,
  CreateLearnSessionResponseSchema,
} from "../../shared/learning/create-learn-session";
import { ObservationScopeRuntimeSchema } from "../../shared/learning/observation-scope-runtime";
import { PracticeReportSchema } from "../../shared/learning/practice";
import { UseAsExampleRequestSchema, UseAsExampleResponseSchema } from "../../shared/learning/skill-example";
import { SessionSeedResponseSchema } from "../../shared/learning/trace-seed";
import { CoachingAnswerRequestSchema, CoachingSetupSchema, CoachingShownRequestSchema, CoachingStateSchema } from "../../shared/learning/coaching";
import { ObservationAdaptersResponseSchema } from "../../shared/learning/session-requests";
import { AbilityLookupQuerySchema, AbilityLookupResultSchema } from "../../shared/abilities/lookup-contract";
import {
  AbilityRunSpecSchema,
  CancelRunRequestSchema,
  ConfirmRunStepRequestSchema,
  RunListResponseSchema,
  RunResponseSchema,
  StartRunRequestSchema,
} from "../../shared/execution/run-contract";
import {
  LearnCheckpointReceiptsResponseSchema,
  LearnProposalsListResponseSchema,
} from "../../shared/learning/read-models";
import {
  AbilityAvailabilityResponseSchema,
  AnswerQuestionsRequestSchema,
  AnswerQuestionsResponseSchema,
  DeleteSessionResponseSchema,
  GenerateProposalResponseSchema,
  LearnHistoryResponseSchema,
  LearnReceiptsResponseSchema,
  LearnSessionDetailResponseSchema,
  LearnSessionsListResponseSchema,
  MarkGoalRequestSchema,
  MarkStepRequestSchema,
  AbilityActivateResponseSchema,
  AbilityDeactivateResponseSchema,
  AbilityPromoteSharedResponseSchema,
  AbilityQuarantineResponseSchema,
  AbilityUnquarantineResponseSchema,
  ProposalDetailResponseSchema,
  ProposalInstallResponseSchema,
  ProposalReviseRequestSchema,
  SessionActionResponseSchema,
  SetTestPolicyRequestSchema,
  StartSessionResponseSchema,
  StopSessionResponseSchema,
  TrimRequestSchema,
  ValidateProposalResponseSchema,
  ValidationRunsResponseSchema,
} from "../../shared/learning/route-contracts";
import { LearningRuntimeSnapshotSchema } from "../../shared/learning/runtime-snapshot";
import { RequestMoreTestsRequestSchema, RequestMoreTestsResponseSchema } from "../../shared/learning/proposal-tests";
import {
  ExcludeEventsRequestSchema,
  ProposalSkillMarkdownResponseSchema,
  QuarantineAbilityRequestSchema,
  ValidateProposalRequestSchema,
  SessionObservationsResponseSchema,
} from "../../shared/learning/session-requests";
import { SetRedactionRequestSchema } from "../../shared/observation/capture-protocol";
import {
  SkillImportDeleteUploadResponseSchema,
  SkillImportListResponseSchema,
  SkillImportScanResponseSchema,
  SkillImportStageResponseSchema,
  SkillImportTerminalActionResponseSchema,
  SkillImportUploadResponseSchema,
  SkillPacksListResponseSchema,
  SkillTriggerTestRequestSchema,
  SkillTriggerTestResponseSchema,
  type SkillImportRetryRequest,
} from "../../shared/skills/import";
import { SkillImportDetailViewSchema } from "../../shared/skills/import-bundle";
import {
  CategoriesListResponseSchema,
  CategoryAssignmentResponseSchema,
  CategoryItemsResponseSchema,
  CategoryResponseSchema,
  CreateCategoryRequestSchema,
  DeleteCategoryResponseSchema,
  UpdateCategoryRequestSchema,
  type CategoryItemKind,
} from "../../shared/common/category";

/**
 * Why a call to the agent failed: it could not be reached at all, it answered with a coded
 * `ApiErrorEnvelope`, or it answered with something that is not our contract.
 */
export type AgentFailure =
  | { kind: "unreachable"; message: string }
  | { kind: "api"; status: number; code: string; message: string; activeSessionId?: string }
  | { kind: "protocol"; status: number; message: string };

export class AgentRequestError extends Error {
  readonly failure: AgentFailure;
  constructor(failure: AgentFailure) {
    super(failure.message);
    this.name = "AgentRequestError";
    this.failure = failure;
  }
}

/** A route this agent does not have yet (partial deployment, R11.2): the UI says "not available yet". */
export function isRouteMissing(error: unknown): boolean {
  return error instanceof AgentRequestError && error.failure.kind === "api" && error.failure.code === "ROUTE_NOT_FOUND";
}

export interface AgentClientOptions {
  baseUrl: string;
  token?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** Only the part of an OpenAPI document the panel reads (ui/common/agent-features parses the rest). */
const OpenApiDocumentSchema = z.object({ paths: z.record(z.string(), z.unknown()) }).passthrough();

/** `exclude-events` answers the exclusions only (the observations response, trimmed to them). */
const ExcludeEventsResponseSchema = SessionObservationsResponseSchema.pick({ excluded_event_ids: true, schema_version: true });

type Input<S extends z.ZodType> = z.input<S>;

/** Where an event stream resumes (`Last-Event-ID`) and how its reader stops it. */
export interface EventStreamInit {
  lastEventId?: string;
  signal: AbortSignal;
}

/** The one typed client the side panel uses to talk to the agent (DESIGN §3). */
export function createAgentClient(options: AgentClientOptions) {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeoutMs = options.timeoutMs ?? 5000;

  function headers(body: boolean, extra: Record<string, string> = {}): Record<string, string> {
    const result: Record<string, string> = { ...extra };
    if (options.token !== undefined) result.authorization = `Bearer ${options.token}`;
    if (body) result["content-type"] = "application/json";
    return result;
  }

  async function failureOf(response: Response): Promise<AgentRequestError> {
    let payload: unknown;
    try {
      payload = await response.json();
    } catch {
      return new AgentRequestError({ kind: "protocol", status: response.status, message: `The agent answered ${response.status} without an error envelope.` });
    }
    const envelope = ApiErrorResponseSchema.safeParse(payload);
    if (!envelope.success) {
      return new AgentRequestError({ kind: "protocol", status: response.status, message: `The agent answered ${response.status} without an error envelope.` });
    }
    return new AgentRequestError({
      kind: "api",
      status: response.status,
      code: envelope.data.error.code,
      message: envelope.data.error.message,
      ...(envelope.data.active_session_id === undefined ? {} : { activeSessionId: envelope.data.active_session_id }),
    });
  }

  async function send(method: string, path: string, init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal }): Promise<Response> {
    try {
      return await doFetch(`${options.baseUrl}${path}`, {
        method,
        headers: headers(init.body !== undefined, init.headers),
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        ...(init.signal === undefined ? {} : { signal: init.signal }),
      });
    } catch {
      throw new AgentRequestError({ kind: "unreachable", message: `No agent answered at ${options.baseUrl}.` });
    }
  }

  async function call<S extends z.ZodType>(method: string, path: string, schema: S, body?: unknown, timeout = timeoutMs): Promise<z.infer<S>> {
    return answerOf(await send(method, path, { body, signal: AbortSignal.timeout(timeout) }), schema);
  }

  /** A response's body checked against its contract; a non-2xx answer becomes its failure. */
  async function answerOf<S extends z.ZodType>(response: Response, schema: S): Promise<z.infer<S>> {
    if (!response.ok) throw await failureOf(response);
    let payload: unknown;
    try {
      payload = await response.json();
    } catch {
      throw new AgentRequestError({ kind: "protocol", status: response.status, message: "The agent's answer was not JSON." });
    }
    const parsed = schema.safeParse(payload);
    if (!parsed.success) {
      throw new AgentRequestError({ kind: "protocol", status: response.status, message: "The agent's answer did not match the contract." });
    }
    return parsed.data;
  }

  /** The availability answer with what its headers say: stale (§0C.11B) and its entity tag. */
  async function availabilityOf(response: Response) {
    const data = await answerOf(response, AbilityAvailabilityResponseSchema);
    return { ...data, stale: response.headers.get("x-availability-stale") === "true", etag: response.headers.get("etag") };
  }

  /** An SSE stream (sessions, runs), opened with the bearer header; the caller reads and aborts it. */
  async function openEvents(path: string, init: EventStreamInit): Promise<ReadableStream<Uint8Array>> {
    const response = await send("GET", path, {
      headers: { accept: "text/event-stream", ...(init.lastEventId === undefined ? {} : { "last-event-id": init.lastEventId }) },
      signal: init.signal,
    });
    if (!response.ok) throw await failureOf(response);
    if (response.body === null) throw new AgentRequestError({ kind: "protocol", status: response.status, message: "The event stream had no body." });
    return response.body;
  }

  /** Request bodies go through their shared schema too: a bug here is caught before it is sent. */
  const body = <S extends z.ZodType>(schema: S, value: Input<S>): z.infer<S> => schema.parse(value);
  const session = (id: string) => `/api/learn/sessions/${encodeURIComponent(id)}`;
  const proposal = (id: string) => `/api/learn/proposals/${encodeURIComponent(id)}`;
  const page = (pageNumber: number, pageSize: number) => `page=${pageNumber}&page_size=${pageSize}`;
  // Compiling a demonstration reads every event and snapshot of the session: give it longer.
  const SLOW = 30_000;
  // A validation rehearses the skill in a fresh headless browser.
  const VERY_SLOW = 180_000;
  const ability = (id: string) => `/api/abilities/${encodeURIComponent(id)}`;
  const run = (id: string) => `/api/runs/${encodeURIComponent(id)}`;

  return {
    health: () => call("GET", "/api/health", AgentHealthResponseSchema),
    pair: (extensionId: string) =>
      call("POST", "/api/pairing", PairingResponseSchema, { extension_id: extensionId, schema_version: 1 }),
    pairingStatus: () => call("GET", "/api/pairing", PairingResponseSchema),

    // --- sessions (§0C.16A) ---
    createSession: (request: Input<typeof CreateLearnSessionRequestSchema>) =>
      call("POST", "/api/learn/sessions", CreateLearnSessionResponseSchema, body(CreateLearnSessionRequestSchema, request)),
    listSessions: (pageNumber = 1, pageSize = 50) =>
      call("GET", `/api/learn/sessions?${page(pageNumber, pageSize)}`, LearnSessionsListResponseSchema),
    practiceReport: (id: string) => call("GET", `${session(id)}/practice`, PracticeReportSchema),
    /** Learn From This (§0B.6): what a session was seeded with. */
    sessionSeed: (id: string) => call("GET", `${session(id)}/seed`, SessionSeedResponseSchema),
    /** Use as Example (§0B.6): a new revision of a proposal, or a proposal for a skill's next version. */
    useAsExample: (request: Input<typeof UseAsExampleRequestSchema>) =>
      call("POST", "/api/learn/examples", UseAsExampleResponseSchema, body(UseAsExampleRequestSchema, request), SLOW),
    // Coaching Agent (issue #16): its steps, turns and answers.
    coachingState: (id: string) => call("GET", `${session(id)}/coaching`, CoachingStateSchema),
    setUpCoaching: (id: string, request: Input<typeof CoachingSetupSchema>) => call("POST", `${session(id)}/coaching`, CoachingStateSchema, body(CoachingSetupSchema, request)),
    answerCoaching: (id: string, request: Input<typeof CoachingAnswerRequestSchema>) =>
      call("POST", `${session(id)}/coaching/answer`, CoachingStateSchema, body(CoachingAnswerRequestSchema, request)),
    coachingShown: (id: string, request: Input<typeof CoachingShownRequestSchema>) =>
      call("POST", `${session(id)}/coaching/shown`, CoachingStateSchema, body(CoachingShownRequestSchema, request)),
    sessionDetail: (id: string) => call("GET", `${session(id)}/detail`, LearnSessionDetailResponseSchema),
    startSession: (id: string) => call("POST", `${session(id)}/start`, StartSessionResponseSchema, {}),
    pauseSession: (id: string) => call("POST", `${session(id)}/pause`, SessionActionResponseSchema, {}),
    resumeSession: (id: string) => call("POST", `${session(id)}/resume`, SessionActionResponseSchema, {}),
    stopSession: (id: string) => call("POST", `${session(id)}/stop`, StopSessionResponseSchema, {}),
    cancelSession: (id: string, reason?: string) =>
      call("POST", `${session(id)}/cancel`, SessionActionResponseSchema, reason === undefined ? {} : { reason }),
    deleteSession: (id: string) => call("DELETE", session(id), DeleteSessionResponseSchema),
    markGoal: (id: string, request: Input<typeof MarkGoalRequestSchema>) =>
      call("POST", `${session(id)}/mark-goal`, SessionActionResponseSchema, body(MarkGoalRequestSchema, request)),
    markStep: (id: string, request: Input<typeof MarkStepRequestSchema>) =>
      call("POST", `${session(id)}/mark-step`, SessionActionResponseSchema, body(MarkStepRequestSchema, request)),
    trim: (id: string, request: Input<typeof TrimRequestSchema>) =>
      call("POST", `${session(id)}/trim`, SessionActionResponseSchema, body(TrimRequestSchema, request)),
    setTestPolicy: (id: string, request: Input<typeof SetTestPolicyRequestSchema>) =>
      call("POST", `${session(id)}/set-test-policy`, SessionActionResponseSchema, body(SetTestPolicyRequestSchema, request)),
    setRedaction: (id: string, request: Input<typeof SetRedactionRequestSchema>) =>
      call("PUT", `${session(id)}/redaction`, ObservationScopeRuntimeSchema, body(SetRedactionRequestSchema, request)),
    answerQuestions: (id: string, request: Input<typeof AnswerQuestionsRequestSchema>) =>
      call("POST", `${session(id)}/answer-questions`, AnswerQuestionsResponseSchema, body(AnswerQuestionsRequestSchema, request), SLOW),
    generateProposal: (id: string) => call("POST", `${session(id)}/generate-proposal`, GenerateProposalResponseSchema, {}, SLOW),
    observationScope: (id: string) => call("GET", `${session(id)}/observation-scope`, ObservationScopeRuntimeSchema),
    checkpointReceipts: (id: string) =>
      call("GET", `${session(id)}/checkpoint-receipts?${page(1, 100)}`, LearnCheckpointReceiptsResponseSchema),
    /** The captured events, masked as they were in the page, oldest first, after `after` (an event id). */
    observations: (id: string, after?: string) =>
      call("GET", `${session(id)}/observations${after === undefined ? "" : `?after=${encodeURIComponent(after)}`}`, SessionObservationsResponseSchema),
    excludeEvents: (id: string, request: Input<typeof ExcludeEventsRequestSchema>) =>
      call("POST", `${session(id)}/exclude-events`, ExcludeEventsResponseSchema, body(ExcludeEventsRequestSchema, request)),
    runtimeCurrent: () => call("GET", "/api/learn/runtime/current", LearningRuntimeSnapshotSchema),
    /** §0C.22 which observation adapters have reported in, and which are healthy now. */
    observationAdapters: () => call("GET", "/api/observation/adapters", ObservationAdaptersResponseSchema),
    history: (pageNumber = 1, pageSize = 50) => call("GET", `/api/learn/history?${page(pageNumber, pageSize)}`, LearnHistoryResponseSchema),
    receipts: (pageNumber = 1, pageSize = 50, sessionId?: string) =>
      call(
        "GET",
        `/api/learn/receipts?${page(pageNumber, pageSize)}${sessionId === undefined ? "" : `&session_id=${encodeURIComponent(sessionId)}`}`,
        LearnReceiptsResponseSchema,
      ),
    /** The agent's own description of its routes (which features it has, ui/common/agent-features). */
    openApi: () => call("GET", "/api/openapi.json", OpenApiDocumentSchema, undefined, 15_000),

    /**
     * `GET …/events` (§0C.16C): the SSE stream, read with fetch because it needs the bearer header
     * (EventSource cannot send one, and the token never goes into a URL). Resolves with the open
     * response once the agent accepted; the caller reads the body and aborts through `signal`.
     */
    openSessionEvents: (id: string, init: EventStreamInit) => openEvents(`${session(id)}/events`, init),

    // --- proposals (§0C.16A) ---
    listProposals: (pageNumber = 1, pageSize = 50) =>
      call("GET", `/api/learn/proposals?${page(pageNumber, pageSize)}`, LearnProposalsListResponseSchema),
    proposalDetail: (id: string) => call("GET", `${proposal(id)}/detail`, ProposalDetailResponseSchema),
    skillMarkdown: (id: string) => call("GET", `${proposal(id)}/skill-md`, ProposalSkillMarkdownResponseSchema),
    reviseProposal: (id: string, request: Input<typeof ProposalReviseRequestSchema>) =>
      call("POST", `${proposal(id)}/revise`, ProposalDetailResponseSchema, body(ProposalReviseRequestSchema, request), SLOW),
    rejectProposal: (id: string, reason: string) =>
      call("POST", `${proposal(id)}/reject`, ProposalDetailResponseSchema, body(RejectProposalRequestSchema, { reason, schema_version: 1 })),
    validateProposal: (id: string, request: Input<typeof ValidateProposalRequestSchema>) =>
      call("POST", `${proposal(id)}/validate`, ValidateProposalResponseSchema, body(ValidateProposalRequestSchema, request), VERY_SLOW),
    validationRuns: (id: string) => call("GET", `${proposal(id)}/validation-runs`, ValidationRunsResponseSchema),
    /** §0C.18 Request More Tests: a new draft revision with more trigger tests, to validate again. */
    requestMoreTests: (id: string, request: Input<typeof RequestMoreTestsRequestSchema>) =>
      call("POST", `${proposal(id)}/request-more-tests`, RequestMoreTestsResponseSchema, body(RequestMoreTestsRequestSchema, request), SLOW),
    /** Installs privately: the workspace lane is Approve's (an explicit, separate decision). */
    installPrivately: (id: string) => call("POST", `${proposal(id)}/install`, ProposalInstallResponseSchema, { install_lane: "experimental_private" }, SLOW),
    approveProposal: (id: string, note?: string) =>
      call(
        "POST",
        `${proposal(id)}/approve`,
        ProposalDetailResponseSchema,
        body(ApproveProposalRequestSchema, { approval_scope: "approved_workspace", ...(note === undefined ? {} : { approval_note: note }), schema_version: 1 }),
        SLOW,
      ),

    // --- abilities (§0C.16A; routes of issue #6, absent on older agents: ROUTE_NOT_FOUND) ---
    /** The snapshot, and whether the agent says it is stale (§0C.11B: "refreshing abilities…"). */
    abilityAvailability: async () => availabilityOf(await send("GET", "/api/abilities/availability", { signal: AbortSignal.timeout(timeoutMs) })),
    /**
     * The availability snapshot unless it is still the one tagged `etag` (the agent answers 304):
     * what the Skills page polls while it is open (R11.2-35).
     */
    async abilityAvailabilityIfChanged(etag: string) {
      const response = await send("GET", "/api/abilities/availability", { headers: { "if-none-match": etag }, signal: AbortSignal.timeout(timeoutMs) });
      if (response.status === 304) return { changed: false as const };
      return { changed: true as const, ...(await availabilityOf(response)) };
    },
    activateAbility: (id: string) => call("POST", `${ability(id)}/activate`, AbilityActivateResponseSchema, {}),
    deactivateAbility: (id: string) => call("POST", `${ability(id)}/deactivate`, AbilityDeactivateResponseSchema, {}),
    quarantineAbility: (id: string, reason: string) =>
      call("POST", `${ability(id)}/quarantine`, AbilityQuarantineResponseSchema, body(QuarantineAbilityRequestSchema, { reason })),
    unquarantineAbility: (id: string) => call("POST", `${ability(id)}/unquarantine`, AbilityUnquarantineResponseSchema, {}),
    promoteAbility: (id: string) => call("POST", `${ability(id)}/promote-shared`, AbilityPromoteSharedResponseSchema, {}),
    /** Issue #15: abilities that fit a request in the user's words, best first, in every lane (the Skills search). */
    lookupAbilities: (userQuery: string) =>
      call(
        "POST",
        "/api/abilities/lookup",
        AbilityLookupResultSchema,
        body(AbilityLookupQuerySchema, { user_query: userQuery.slice(0, 500), install_lanes_allowed: ["experimental_private", "approved_workspace", "shared_promoted"], schema_version: 1 }),
      ),

    // --- runs of an installed ability (issue #21, shared/execution/run-contract; absent on older agents) ---
    runSpec: (abilityId: string) => call("GET", `${ability(abilityId)}/run-spec`, AbilityRunSpecSchema),
    /** Starts a run; the agent answers 202 with the run as it starts. Secret values travel only in this request. */
    startRun: (request: Input<typeof StartRunRequestSchema>) => call("POST", "/api/runs", RunResponseSchema, body(StartRunRequestSchema, request), SLOW),
    run: (dispatchId: string) => call("GET", run(dispatchId), RunResponseSchema),
    listRuns: (abilityId: string, pageNumber = 1, pageSize = 20) =>
      call("GET", `/api/runs?${page(pageNumber, pageSize)}&ability_id=${encodeURIComponent(abilityId)}`, RunListResponseSchema),
    /** `GET /api/runs/:dispatchId/events`: every frame carries the whole run (read as the session stream is). */
    openRunEvents: (dispatchId: string, init: EventStreamInit) => openEvents(`${run(dispatchId)}/events`, init),
    confirmRun: (dispatchId: string, request: Input<typeof ConfirmRunStepRequestSchema>) =>
      call("POST", `${run(dispatchId)}/confirm`, RunResponseSchema, body(ConfirmRunStepRequestSchema, request)),
    cancelRun: (dispatchId: string, reason?: string) =>
      call("POST", `${run(dispatchId)}/cancel`, RunResponseSchema, body(CancelRunRequestSchema, { ...(reason === undefined ? {} : { reason }), schema_version: 1 })),
    /** The screenshot kept with a run where it stopped, as an image (fetched with the token, so never by URL). */
    async runScreenshot(dispatchId: string): Promise<Blob> {
      const response = await send("GET", `${run(dispatchId)}/screenshot`, { signal: AbortSignal.timeout(timeoutMs) });
      if (!response.ok) throw await failureOf(response);
      const type = response.headers.get("content-type") ?? "";
      if (!type.startsWith("image/")) throw new AgentRequestError({ kind: "protocol", status: response.status, message: "The screenshot was not an image." });
      return response.blob();
    },

    // --- Import Skill (§0C.20) ---
    /**
     * Uploads a bundle (a .zip, or one SKILL.md) as multipart/form-data (§0C.20 multipart contract),
     * its MIME type named from its extension, since browsers name zips differently.
     */
    async uploadSkillBundle(file: Blob, filename: string, clientRequestId?: string) {
      const form = new FormData();
      form.append("metadata", JSON.stringify({ source: "manual_upload", ...(clientRequestId === undefined ? {} : { client_request_id: clientRequestId }), schema_version: 1 }));
      const type = /\.zip$/i.test(filename) ? "application/zip" : /\.md$/i.test(filename) ? "text/markdown" : file.type;
      form.append("bundle", new Blob([file], { type }), filename);
      let response: Response;
      try {
        response = await doFetch(`${options.baseUrl}/api/skills/import/uploads`, { method: "POST", headers: headers(false), body: form, signal: AbortSignal.timeout(VERY_SLOW) });
      } catch {
        throw new AgentRequestError({ kind: "unreachable", message: `No agent answered at ${options.baseUrl}.` });
      }
      return answerOf(response, SkillImportUploadResponseSchema);
    },
    deleteSkillUpload: (ref: string) => call("DELETE", `/api/skills/import/uploads/${encodeURIComponent(ref)}`, SkillImportDeleteUploadResponseSchema),
    scanSkillImport: (tempArtifactRef: string) =>
      call("POST", "/api/skills/import/scan", SkillImportScanResponseSchema, { source: "manual_upload", temp_artifact_ref: tempArtifactRef, schema_version: 1 }, SLOW),
    stageSkillImport: (importId: string) => call("POST", "/api/skills/import/stage", SkillImportStageResponseSchema, { import_id: importId, schema_version: 1 }, SLOW),
    skillImportDetail: (importId: string) => call("GET", `/api/skills/import/${encodeURIComponent(importId)}`, SkillImportDetailViewSchema),
    listSkillImports: (pageNumber = 1, pageSize = 50) => call("GET", `/api/skills/import/list?${page(pageNumber, pageSize)}`, SkillImportListResponseSchema),
    triggerTest: (request: Input<typeof SkillTriggerTestRequestSchema>) =>
      call("POST", "/api/skills/trigger-test", SkillTriggerTestResponseSchema, body(SkillTriggerTestRequestSchema, request)),
    installSkillImport: (importId: string) =>
      call("POST", "/api/skills/import/install-private", SkillImportTerminalActionResponseSchema, { import_id: importId, target_scope: "private", schema_version: 1 }, SLOW),
    approveSkillImport: (importId: string) => call("POST", "/api/skills/import/approve", SkillImportTerminalActionResponseSchema, { import_id: importId, schema_version: 1 }, SLOW),
    rejectSkillImport: (importId: string, reason: string) =>
      call("POST", "/api/skills/import/reject", SkillImportTerminalActionResponseSchema, { import_id: importId, reason, schema_version: 1 }),
    discardSkillImport: (importId: string) => call("POST", "/api/skills/import/discard", SkillImportTerminalActionResponseSchema, { import_id: importId, schema_version: 1 }),
    retrySkillImport: (importId: string, kind: SkillImportRetryRequest["retry_kind"]) =>
      call("POST", "/api/skills/import/retry", SkillImportTerminalActionResponseSchema, { import_id: importId, retry_kind: kind, schema_version: 1 }, SLOW),
    skillPacks: () => call("GET", "/api/skills/packs", SkillPacksListResponseSchema),

    // --- categories (§0C.21) ---
    listCategories: () => call("GET", "/api/categories", CategoriesListResponseSchema),
    createCategory: (request: Input<typeof CreateCategoryRequestSchema>) => call("POST", "/api/categories", CategoryResponseSchema, body(CreateCategoryRequestSchema, request)),
    updateCategory: (id: string, request: Input<typeof UpdateCategoryRequestSchema>) =>
      call("PUT", `/api/categories/${encodeURIComponent(id)}`, CategoryResponseSchema, body(UpdateCategoryRequestSchema, request)),
    deleteCategory: (id: string) => call("DELETE", `/api/categories/${encodeURIComponent(id)}`, DeleteCategoryResponseSchema),
    categoryItems: (id: string) => call("GET", `/api/categories/${encodeURIComponent(id)}/items`, CategoryItemsResponseSchema),
    assignToCategory: (id: string, kind: CategoryItemKind, itemId: string) =>
      call("POST", `/api/categories/${encodeURIComponent(id)}/assign`, CategoryAssignmentResponseSchema, { item_kind: kind, item_id: itemId, schema_version: 1 }),
    removeFromCategory: (id: string, kind: CategoryItemKind, itemId: string) =>
      call("DELETE", `/api/categories/${encodeURIComponent(id)}/items/${kind}/${encodeURIComponent(itemId)}`, CategoryAssignmentResponseSchema),
  };
}

export type AgentClient = ReturnType<typeof createAgentClient>;

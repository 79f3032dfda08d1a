import path from "node:path";
import websocket from "@fastify/websocket";
import Fastify, { type FastifyBaseLogger, type FastifyServerOptions } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { createAbilityRegistry } from "./abilities/ability-registry";
import { abilityRoutes } from "./abilities/ability-routes";
import { checkpointRoutes } from "./abilities/checkpoint-routes";
import { createValidationService, type ValidationService } from "./learning/validation/validation-service";
import { validationRoutes } from "./learning/validation/validation-routes";
import { createAbilityService, type AbilityService, type InstallSagaStep } from "./abilities/ability-service";
import { createWorkspaceProjector } from "./abilities/workspace-projection";
import { createSkillFolderSource, type SkillFolder } from "./abilities/skill-folders";
import { systemClock, type Clock } from "./clock";
import { AppError } from "./errors/app-error";
import { clientErrorHandler, errorHandler, frameworkErrorHandler } from "./http/error-handler";
import { historyRoutes } from "./learning/history-routes";
import { observationRoutes } from "./learning/observation-routes";
import { proposalRoutes } from "./learning/proposal-routes";
import { createProposalService, type ProposalService } from "./learning/proposal-service";
import type { RefinerConfig } from "./learning/refiner/model-refiner";
import { createLearnEventLog, type LearnEventLog } from "./learning/learn-event-log";
import { retentionRoutes } from "./learning/retention-routes";
import { runtimeRoutes } from "./learning/runtime-routes";
import { createSessionCleanup, isCleanupReportEmpty } from "./learning/session-cleanup";
import { sessionEventsRoute } from "./learning/session-events-route";
import { sessionRoutes } from "./learning/session-routes";
import { createSessionService, type SessionService } from "./learning/session-service";
import type { MemoryStore } from "./memory/memory-store";
import { createAdapterRegistry, type AdapterRegistry } from "./observation/adapter-registry";
import { adapterRoutes } from "./observation/adapter-routes";
import { createIngestService } from "./observation/ingest-service";
import { createTabRelay } from "./execution/in-tab/tab-relay";
import { createUserTabProvider } from "./execution/in-tab/tab-provider";
import { ingestRoutes } from "./observation/ingest-routes";
import { deprecatedRoutes } from "./routes/deprecated-routes";
import { healthRoutes } from "./routes/health-routes";
import { openApiDocs } from "./routes/openapi-routes";
import { pairingRoutes } from "./routes/pairing-routes";
import { skillImport } from "./skill-import/skill-import-plugin";
import { categoryRoutes } from "./categories/category-routes";
import { createCategoryService } from "./categories/category-service";
import { diskSpaceGuard } from "./memory/disk-space-guard";
import { execute } from "./execution/executor";
import type { ExecuteInput, ExecuteResult } from "./execution/executor-contract";
import { managedBrowser } from "./execution/managed-browser";
import { runEventsRoute } from "./execution/runs/run-events-route";
import { runRoutes } from "./execution/runs/run-routes";
import { createRunService, type RunService } from "./execution/runs/run-service";
import { createRunSpecSource } from "./execution/runs/run-spec";
import { createPracticeService } from "./learning/practice/practice-service";
import { installedFlowOf } from "./learning/session-seed";
import { createExampleService } from "./learning/examples/example-service";
import { exampleRoutes } from "./learning/examples/example-routes";
import { practiceRoutes } from "./learning/practice/practice-routes";
import { coachingRoutes } from "./learning/coaching/coaching-routes";
import { createCoachingService } from "./learning/coaching/coaching-service";
import type { UserTabProvider } from "./execution/in-tab/user-tab-provider";
import { loadOrCreateAgentToken } from "./security/agent-token";
import { createPairingService } from "./security/pairing-service";
import { requestGuard } from "./security/request-guard";

export interface BuildAppOptions {
  memory: MemoryStore;
  /** The port the agent is configured for; port 0 means "whatever the OS gave us" once listening. */
  port: number;
  logger?: FastifyServerOptions["logger"] | FastifyBaseLogger;
  clock?: Clock;
  /** SSE keepalive period (§0C.16C: 30 s); tests shorten it. */
  keepaliveMs?: number;
  /** How often §0C.16D retention runs after the first run at start-up; default 10 minutes. */
  retentionIntervalMs?: number;
  /**
   * Where installed skills are projected for the assistant (`$OPENCLAW_WORKSPACE`). The server
   * always passes the configured folder; embedded uses (tests) default to a folder inside the
   * memory root so nothing outside it is touched.
   */
  openclawWorkspace?: string;
  /**
   * The assistant's skill folders besides the workspace's own (`~/.openclaw/skills`, bundled
   * folders), listed read-only in Skills; none by default, so embedded uses read nothing else.
   */
  skillFolders?: SkillFolder[];
  /** How often the skill folders are checked for a change (default 30 s). */
  skillFoldersIntervalMs?: number;
  /** Chromium for rehearsals (default /usr/bin/chromium); a missing one makes rehearsals `partial`. */
  chromiumPath?: string;
  /** DESIGN §6 step 4: an OpenAI-compatible model that may reword proposals; none by default. */
  refiner?: RefinerConfig | undefined;
  /** Test seam: fail the install saga at a step (R11.2-36). */
  failInstallAt?: () => InstallSagaStep | undefined;
  /** The executor runs of abilities use (issue #21); the agent's own by default. */
  execute?: (input: ExecuteInput) => Promise<ExecuteResult>;
  /** Runs in the user's own tab through the extension; without it `where: user_tab` is refused (ADAPTER_UNAVAILABLE). */
  userTab?: UserTabProvider;
  /** How long a run's step with consequences waits for the person (10 minutes); tests shorten it. */
  runConfirmationTimeoutMs?: number;
}

const DEFAULT_RETENTION_INTERVAL_MS = 10 * 60_000;

/** The learning runtime's services, for in-process callers (ingest, retention, tests). */
export interface LearningRuntime {
  sessions: SessionService;
  events: LearnEventLog;
  adapters: AdapterRegistry;
  proposals: ProposalService;
  abilities: AbilityService;
  validation: ValidationService;
  runs: RunService;
  clock: Clock;
}

declare module "fastify" {
  interface FastifyInstance {
    learning: LearningRuntime;
    registeredRoutes: ReadonlyArray<{ method: string; url: string }>;
    /** "In my browser" runs (issue #21): a tab of the person's Chrome, lent by the connected extension. */
    userTab: UserTabProvider;
  }
}

/** Observation bodies and the token never reach a log line: only method, path and status do. */
const requestSerializers = {
  req: (request: { method: string; url: string; id: string }) => ({
    id: request.id,
    method: request.method,
    path: request.url.split("?")[0],
  }),
  res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
};

export function agentLoggerOptions(level = "info"): FastifyServerOptions["logger"] {
  return { level, serializers: requestSerializers, redact: ["req.headers", "headers.authorization"] };
}

/** Builds the agent (fastify/demo style): plugins and routes wired, nothing listening yet. */
export async function buildApp(options: BuildAppOptions) {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? false;
  const registeredRoutes: Array<{ method: string; url: string }> = [];
  const app = Fastify({
    ...(typeof logger === "object" && "child" in logger ? { loggerInstance: logger } : { logger }),
    bodyLimit: 1024 * 1024,
    // Request ids double as the envelope's correlation_id; random, never derived from input.
    genReqId: () => crypto.randomUUID(),
    // What the router and Node's HTTP parser refuse gets the envelope too (issue #8 fuzzing).
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // Node would answer a request without Host with its own bare 400; the guard answers it instead
    // (HOST_NOT_ALLOWED, in the envelope), as it does every other Host it will not serve.
    http: { requireHostHeader: false },
  }).withTypeProvider<ZodTypeProvider>();
  // Kept so tests can check that the OpenAPI description covers every route.
  app.decorate("registeredRoutes", registeredRoutes);
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) registeredRoutes.push({ method, url: route.url });
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // JSON is the only body the local API speaks; anything else is a 415, not a string to validate.
  app.removeContentTypeParser("text/plain");
  // … and uncompressed: fastify ignores Content-Encoding, so a "gzip" body would be read as if it were plain JSON.
  app.addHook("preParsing", async (request) => {
    const encoding = request.headers["content-encoding"];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
      throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the request body uncompressed, without a Content-Encoding.");
    }
  });

  const token = await loadOrCreateAgentToken(options.memory);
  const pairing = await createPairingService({ memory: options.memory, now: () => clock.now() });
  const adapters = createAdapterRegistry({ clock });
  const events = await createLearnEventLog({ memory: options.memory, clock });
  const sessions = await createSessionService({ memory: options.memory, clock, events, adapters });
  const proposals = await createProposalService({ memory: options.memory, sessions, clock, refiner: options.refiner });
  const registry = await createAbilityRegistry(options.memory);
  const projector = createWorkspaceProjector(options.openclawWorkspace ?? `${options.memory.root}/openclaw-workspace`);
  const categories = await createCategoryService(options.memory, clock);
  const folders = createSkillFolderSource([{ path: path.join(projector.root, "skills"), kind: "native" }, ...(options.skillFolders ?? [])]);
  const abilities = createAbilityService({
    memory: options.memory,
    registry,
    projector,
    folders,
    categoriesOf: (abilityId) => categories.categoriesOfSkill(abilityId),
    sessions,
    proposals,
    clock,
    ...(options.failInstallAt === undefined ? {} : { failInstallAt: options.failInstallAt }),
  });
  await abilities.recover();
  const validation = createValidationService({
    memory: options.memory,
    sessions,
    proposals,
    abilities,
    clock,
    ...(options.chromiumPath === undefined ? {} : { chromiumPath: options.chromiumPath }),
  });
  // In-tab runs (issue #21): tabs lent by the connected extension; a Stop in the page cancels the run.
  const tabRelay = createTabRelay({ newId: () => crypto.randomUUID() });
  const userTab =
    options.userTab ?? createUserTabProvider({ relay: tabRelay, onStop: (dispatchId, stop) => void runs.cancel(dispatchId, `Stopped in the tab: ${stop.message}.`).catch(() => undefined) });
  app.decorate("userTab", userTab);
  const specs = createRunSpecSource({ memory: options.memory, registry, abilities, proposals });
  const runs = createRunService({
    memory: options.memory,
    clock,
    specs,
    registry,
    abilities,
    // Runs go to the one executor, in the managed Chromium (the configured one) unless the user's tab is leased.
    execute: options.execute ?? ((input) => execute({ ...input, browser: input.browser ?? managedBrowser(options.chromiumPath === undefined ? {} : { chromiumPath: options.chromiumPath }) })),
    userTab,
    confirmationTimeoutMs: options.runConfirmationTimeoutMs,
    logError: (fields, message) => app.log.error(fields, message),
  });
  // Issue #16: Autonomous Agent Practice plays a skill through the same executor and browser as a run.
  const practice = createPracticeService({
    memory: options.memory,
    registry,
    specs,
    proposals,
    sessions,
    events,
    clock,
    execute: options.execute ?? ((input) => execute({ ...input, browser: input.browser ?? managedBrowser(options.chromiumPath === undefined ? {} : { chromiumPath: options.chromiumPath }) })),
    logError: (fields, message) => app.log.error(fields, message),
  });
  sessions.setModeLauncher("autonomous_agent_practice", practice.launcher);
  // Learn From This (§0B.6): a run's trace is its record and the flow of the skill it ran.
  sessions.setSeedSources({ readRun: (dispatchId) => runs.get(dispatchId).then((run) => run, () => undefined), installedFlow: (abilityId) => installedFlowOf(options.memory, registry, abilityId) });
  // Issue #16: the Coaching Agent takes turns with the person in their tab, through the same executor.
  const coaching = createCoachingService({
    sessions,
    memory: options.memory,
    events,
    clock,
    execute: options.execute ?? execute,
    userTab,
    logError: (fields, message) => app.log.error(fields, message),
  });
  // Issue #21: a run the agent stopped in the middle of is marked interrupted, never resumed.
  await runs.recover();
  app.decorate("learning", { sessions, events, adapters, proposals, abilities, validation, runs, clock });

  await app.register(errorHandler);
  // Before the guard: the plugin's own onRequest hook marks upgrade requests, which is how a
  // refused upgrade gets its socket closed after the 4xx answer.
  // 32 MiB: an in-tab run's CDP answers come over this socket too, and a screenshot of a large
  // screen (PNG, base64) can pass 4 MiB; only the paired extension's Origin may open it.
  await app.register(websocket, { options: { maxPayload: 32 * 1024 * 1024 } });
  await app.register(requestGuard, {
    token,
    pairing,
    allowedPorts: () => {
      const address = app.server.address();
      return typeof address === "object" && address !== null ? [address.port] : [options.port];
    },
  });
  await app.register(diskSpaceGuard, { root: options.memory.root });
  await app.register(openApiDocs);
  await app.register(healthRoutes);
  await app.register(pairingRoutes, { pairing });
  await app.register(runtimeRoutes, { memory: options.memory });
  await app.register(sessionRoutes, { sessions, proposals });
  await app.register(proposalRoutes, { proposals, sessions, memory: options.memory, validation });
  await app.register(observationRoutes, { sessions, memory: options.memory });
  await app.register(abilityRoutes, {
    abilities,
    proposals,
    validation,
    clock,
    memory: options.memory,
    projector,
    // Issue #30: a deleted ability's runs go with it, at once (receipts stay).
    onAbilityDeleted: async (abilityId) => {
      for (const category of categories.list()) {
        for (const item of categories.items(category.category_id).items) {
          if (item.item_id === abilityId && (item.item_kind === "skill" || item.item_kind === "learned_ability")) await categories.unassign(category.category_id, item.item_kind, abilityId);
        }
      }
      return (await runs.purgeAbility(abilityId)).purged.length;
    },
  });
  await app.register(validationRoutes, { validation });
  await app.register(checkpointRoutes, { memory: options.memory, sessions, abilities, clock });
  await app.register(sessionEventsRoute, { sessions, events, ...(options.keepaliveMs === undefined ? {} : { keepaliveMs: options.keepaliveMs }) });
  await app.register(historyRoutes, { sessions, memory: options.memory });
  await app.register(runRoutes, { runs, specs });
  await app.register(practiceRoutes, { practice });
  await app.register(exampleRoutes, { examples: createExampleService({ memory: options.memory, registry, specs, proposals, sessions, clock }) });
  await app.register(coachingRoutes, { coaching });
  await app.register(runEventsRoute, { runs, ...(options.keepaliveMs === undefined ? {} : { keepaliveMs: options.keepaliveMs }) });
  await app.register(adapterRoutes, { adapters });
  const ingest = createIngestService({ memory: options.memory, sessions });
  await app.register(ingestRoutes, { ingest, sessions, adapters, token, tabRelay });
  await app.register(retentionRoutes, { sessions, memory: options.memory, clock });
  await app.register(deprecatedRoutes, { sessions });
  const folderSkillNames = async () => new Map((await folders.scan(new Set(registry.all().map((ability) => ability.skill_name)))).map((skill) => [skill.name, `one of the assistant's own skills (${skill.folder})`]));
  await app.register(skillImport, { memory: options.memory, registry, abilities, projector, clock, otherSkillNames: folderSkillNames });
  await app.register(categoryRoutes, { categories, onChange: () => abilities.refreshCatalog() });

  // §0C.16D TTL enforcement: once when ready, then on a timer that never keeps the process alive.
  // A failed run is logged and retried next time; it never takes the agent down.
  // Runs of abilities are swept in the same pass (issue #30): 7 days after they ended, at once when their ability is gone.
  const cleanup = createSessionCleanup({ sessions, memory: options.memory, clock, proposals, runs, isInstalled: (abilityId) => registry.get(abilityId) !== undefined });
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const runRetention = (): Promise<void> => {
    running ??= cleanup
      .runOnce()
      .then((report) => {
        if (report.failures.length > 0) app.log.error({ failures: report.failures }, "retention cleanup could not finish some sessions");
        if (report.run_failures.length > 0) app.log.error({ failures: report.run_failures }, "retention cleanup could not purge some runs; the next sweep tries again");
        if (!isCleanupReportEmpty(report)) app.log.info({ retention: report }, "retention cleanup");
      })
      .catch((error: unknown) => app.log.error({ err: error }, "retention cleanup failed"))
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  // A skill added to or removed from the assistant's folders reaches Skills and lookup on the next check.
  let folderPrint = await folders.fingerprint();
  let folderTimer: NodeJS.Timeout | undefined;
  const checkFolders = async () => {
    const print = await folders.fingerprint();
    if (print === folderPrint) return;
    folderPrint = print;
    await abilities.refreshAvailability();
  };
  app.addHook("onReady", async () => {
    folderTimer = setInterval(() => void checkFolders().catch((error: unknown) => app.log.error({ err: error }, "skill folder check failed")), options.skillFoldersIntervalMs ?? 30_000);
    folderTimer.unref();
  });
  app.addHook("onClose", async () => clearInterval(folderTimer));
  app.addHook("onReady", async () => {
    await runRetention();
    timer = setInterval(() => void runRetention(), options.retentionIntervalMs ?? DEFAULT_RETENTION_INTERVAL_MS);
    timer.unref();
  });
  app.addHook("onClose", async () => {
    // Runs still going are stopped and marked interrupted before the memory store closes.
    await runs.close();
    clearInterval(timer);
    // The memory store is closed after the app; a run still writing must finish first.
    await running;
  });
  return app;
}

export type AgentApp = Awaited<ReturnType<typeof buildApp>>;

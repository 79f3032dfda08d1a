import path from "node:path";
import { createAbilityRegistry, type AbilityRegistry } from "../abilities/ability-registry";
import { createAbilityService, type AbilityService } from "../abilities/ability-service";
import { createSkillFolderSource, type SkillFolderSource } from "../abilities/skill-folders";
import { createWorkspaceProjector, type WorkspaceProjector } from "../abilities/workspace-projection";
import { createCategoryService, type CategoryService } from "../categories/category-service";
import { systemClock, type Clock } from "../common/clock";
import { execute } from "../execution/executor";
import type { ExecuteInput, ExecuteResult } from "../execution/contract/executor-contract";
import { managedBrowser } from "../execution/managed-browser";
import { createApprovals, type Approvals } from "../execution/approvals/approvals";
import { createRunService, type RunService } from "../execution/runs/run-service";
import { createRunNotices, type RunNotices } from "../execution/runs/run-notices";
import { createRunSpecSource, type RunSpecSource } from "../execution/runs/run-spec";
import { createScheduleService, type ScheduleService } from "../execution/schedules/schedule-service";
import { createScheduler, type Scheduler } from "../execution/schedules/scheduler";
import { createTabRelay, type TabRelay } from "../execution/in-tab/tab-relay";
import { createUserTabProvider } from "../execution/in-tab/tab-provider";
import type { UserTabProvider } from "../execution/in-tab/user-tab-provider";
import { createCoachingService, type CoachingService } from "../learning/coaching/coaching-service";
import { createExampleService, type ExampleService } from "../learning/examples/example-service";
import { createLearnEventLog, type LearnEventLog } from "../learning/sessions/learn-event-log";
import { createPracticeService, type PracticeService } from "../learning/practice/practice-service";
import { createProposalService, type ProposalService } from "../learning/proposals/proposal-service";
import { installedFlowOf } from "../learning/sessions/session-seed";
import { createSessionService, type SessionService } from "../learning/sessions/session-service";
import { createValidationService, type ValidationService } from "../learning/validation/validation-service";
import { createAdapterRegistry, type AdapterRegistry } from "../observation/adapter-registry";
import { createIngestService, type IngestService } from "../observation/ingest-service";
import { loadOrCreateAgentToken } from "../security/agent-token";
import { createPairingService, type PairingService } from "../security/pairing-service";
import type { BuildAppOptions } from "./app-options";

/** The learning runtime's services, for in-process callers (ingest, retention, tests). */
export interface LearningRuntime {
  sessions: SessionService;
  events: LearnEventLog;
  adapters: AdapterRegistry;
  proposals: ProposalService;
  abilities: AbilityService;
  validation: ValidationService;
  runs: RunService;
  /** Issue #33: the person's schedules, and the scheduler that runs them when due. */
  schedules: ScheduleService;
  scheduler: Scheduler;
  clock: Clock;
}

declare module "fastify" {
  interface FastifyInstance {
    learning: LearningRuntime;
    /** "In my browser" runs (issue #21): a tab of the person's Chrome, lent by the connected extension. */
    userTab: UserTabProvider;
  }
}

type LogError = (fields: Record<string, unknown>, message: string) => void;

/** Sessions, their events and proposals: what learning is made of. */
interface LearningServices {
  clock: Clock;
  adapters: AdapterRegistry;
  events: LearnEventLog;
  sessions: SessionService;
  proposals: ProposalService;
}

/** Installed abilities, where they are projected and found, their categories and rehearsals. */
interface AbilityServices {
  registry: AbilityRegistry;
  projector: WorkspaceProjector;
  categories: CategoryService;
  folders: SkillFolderSource;
  abilities: AbilityService;
  validation: ValidationService;
}

/** Everything that replays a flow through the one executor: runs, practice, coaching, examples. */
interface RunServices {
  tabRelay: TabRelay;
  userTab: UserTabProvider;
  specs: RunSpecSource;
  runs: RunService;
  schedules: ScheduleService;
  scheduler: Scheduler;
  /** Issue #33: which runs wait for the person, told to the extension over its socket. */
  runNotices: RunNotices;
  /** Issue #33: standing grants, and the one answer to "is this step allowed now?". */
  approvals: Approvals;
  practice: PracticeService;
  coaching: CoachingService;
  examples: ExampleService;
}

/** Every service of the agent, wired once; the routes and the background work take what they need. */
export interface AgentServices extends LearningServices, AbilityServices, RunServices {
  token: string;
  pairing: PairingService;
  ingest: IngestService;
}

async function wireLearning(options: BuildAppOptions, clock: Clock): Promise<LearningServices> {
  const adapters = createAdapterRegistry({ clock });
  const events = await createLearnEventLog({ memory: options.memory, clock });
  const sessions = await createSessionService({ memory: options.memory, clock, events, adapters });
  const proposals = await createProposalService({ memory: options.memory, sessions, clock, refiner: options.refiner });
  return { clock, adapters, events, sessions, proposals };
}

async function wireAbilities(options: BuildAppOptions, { clock, sessions, proposals }: LearningServices): Promise<AbilityServices> {
  const { memory } = options;
  const registry = await createAbilityRegistry(memory);
  const projector = createWorkspaceProjector(options.openclawWorkspace ?? `${memory.root}/openclaw-workspace`);
  const categories = await createCategoryService(memory, clock);
  const folders = createSkillFolderSource([{ path: path.join(projector.root, "skills"), kind: "native" }, ...(options.skillFolders ?? [])]);
  const abilities = createAbilityService({
    memory,
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
    memory,
    sessions,
    proposals,
    abilities,
    clock,
    ...(options.chromiumPath === undefined ? {} : { chromiumPath: options.chromiumPath }),
  });
  return { registry, projector, categories, folders, abilities, validation };
}

/** The one executor: the configured one, else the agent's own in the managed Chromium unless a lease is given. */
function executorOf(options: BuildAppOptions): (input: ExecuteInput) => Promise<ExecuteResult> {
  return (
    options.execute ??
    ((input) =>
      execute({ ...input, browser: input.browser ?? managedBrowser(options.chromiumPath === undefined ? {} : { chromiumPath: options.chromiumPath }) }))
  );
}

async function wireRuns(options: BuildAppOptions, learning: LearningServices, owned: AbilityServices, logError: LogError): Promise<RunServices> {
  const { memory } = options;
  const { clock, sessions, events, proposals } = learning;
  const { registry, abilities } = owned;
  const runExecutor = executorOf(options);
  // In-tab runs (issue #21): tabs lent by the connected extension; a Stop in the page cancels the run.
  const tabRelay = createTabRelay({ newId: () => crypto.randomUUID() });
  const userTab =
    options.userTab ??
    createUserTabProvider({
      relay: tabRelay,
      onStop: (dispatchId, stop) => void runs.cancel(dispatchId, `Stopped in the tab: ${stop.message}.`).catch(() => undefined),
    });
  const specs = createRunSpecSource({ memory, registry, abilities, proposals });
  const approvals = await createApprovals({ memory, clock });
  const runs = createRunService({
    approvals,
    memory,
    clock,
    specs,
    registry,
    abilities,
    execute: runExecutor,
    userTab,
    confirmationTimeoutMs: options.runConfirmationTimeoutMs,
    logError,
  });
  const runNotices = createRunNotices({ store: runs.store, sitesOf: (abilityId) => specs.resolve(abilityId).then(({ spec }) => spec.sites), logError });
  // Issue #16: Autonomous Agent Practice plays a skill through the same executor and browser as a run.
  const practice = createPracticeService({ memory, registry, specs, proposals, sessions, events, clock, execute: runExecutor, logError });
  sessions.setModeLauncher("autonomous_agent_practice", practice.launcher);
  // Learn From This (§0B.6): a run's trace is its record and the flow of the skill it ran.
  sessions.setSeedSources({
    readRun: (dispatchId) =>
      runs.get(dispatchId).then(
        (run) => run,
        () => undefined,
      ),
    installedFlow: (abilityId) => installedFlowOf(memory, registry, abilityId),
  });
  // Issue #16: the Coaching Agent takes turns with the person in their tab, through the same executor (it always lends the tab).
  const coaching = createCoachingService({ sessions, memory, events, clock, execute: runExecutor, userTab, logError });
  const examples = createExampleService({ memory, registry, specs, proposals, sessions, clock });
  // Issue #21: a run the agent stopped in the middle of is marked interrupted, never resumed.
  await runs.recover();
  // Issue #33: schedules run through the same run service; their one current view is read by the first tick, after ready.
  const schedules = createScheduleService({ memory, clock, registry, specs, runs });
  const scheduler = createScheduler({ schedules, runs, clock, tickMs: options.scheduleTickMs, logError });
  return { tabRelay, userTab, specs, runs, schedules, scheduler, runNotices, approvals, practice, coaching, examples };
}

/** Builds every service on the memory store, recovering what a stop cut short (install sagas, runs). */
export async function wireServices(options: BuildAppOptions, logError: LogError): Promise<AgentServices> {
  const clock = options.clock ?? systemClock;
  const token = await loadOrCreateAgentToken(options.memory);
  const pairing = await createPairingService({ memory: options.memory, now: () => clock.now() });
  const learning = await wireLearning(options, clock);
  const abilities = await wireAbilities(options, learning);
  const runs = await wireRuns(options, learning, abilities, logError);
  const ingest = createIngestService({ memory: options.memory, sessions: learning.sessions });
  return { token, pairing, ingest, ...learning, ...abilities, ...runs };
}

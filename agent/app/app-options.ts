import type { FastifyBaseLogger, FastifyServerOptions } from "fastify";
import type { InstallSagaStep } from "../abilities/ability-service";
import type { SkillFolder } from "../abilities/skill-folders";
import type { Clock } from "../common/clock";
import type { ExecuteInput, ExecuteResult } from "../execution/contract/executor-contract";
import type { UserTabProvider } from "../execution/in-tab/user-tab-provider";
import type { RefinerConfig } from "../learning/refiner/model-refiner";
import type { MemoryStore } from "../memory/memory-store";

/** What the agent is built from: production passes its configuration, tests change a few seams. */
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
  /** How often the scheduler looks for due schedules (issue #33; 30 s); tests shorten it. */
  scheduleTickMs?: number;
  /** How long a run's step with consequences waits for the person (10 minutes); tests shorten it. */
  runConfirmationTimeoutMs?: number;
}

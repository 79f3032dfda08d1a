import { createSessionCleanup, isCleanupReportEmpty } from "../learning/retention/session-cleanup";
import type { AgentServices } from "./agent-services";
import type { BuildAppOptions } from "./app-options";
import type { HttpApp } from "./http-app";

const DEFAULT_RETENTION_INTERVAL_MS = 10 * 60_000;

/**
 * §0C.16D TTL enforcement: once just after the agent is ready (issue 32: scheduled, not awaited
 * before listening, so a long memory does not hold the port back), then on a timer that never
 * keeps the process alive.
 * A failed run is logged and retried next time; it never takes the agent down. Runs of abilities
 * are swept in the same pass (issue #30): 7 days after they ended, at once when their ability is gone.
 */
export function scheduleRetention(app: HttpApp, { sessions, clock, proposals, runs, registry }: AgentServices, options: BuildAppOptions): void {
  const cleanup = createSessionCleanup({
    sessions,
    memory: options.memory,
    clock,
    proposals,
    runs,
    isInstalled: (abilityId) => registry.get(abilityId) !== undefined,
  });
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closing = false;
  const runRetention = (): Promise<void> => {
    running ??= cleanup
      .runOnce()
      .then((report) => {
        if (report.failures.length > 0) app.log.error({ failures: report.failures }, "retention cleanup could not finish some sessions");
        if (report.run_failures.length > 0)
          app.log.error({ failures: report.run_failures }, "retention cleanup could not purge some runs; the next sweep tries again");
        if (!isCleanupReportEmpty(report)) app.log.info({ retention: report }, "retention cleanup");
      })
      .catch((error: unknown) => app.log.error({ err: error }, "retention cleanup failed"))
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const sweepUnlessClosing = () => {
    if (!closing) void runRetention();
  };
  app.addHook("onReady", async () => {
    setImmediate(sweepUnlessClosing);
    timer = setInterval(sweepUnlessClosing, options.retentionIntervalMs ?? DEFAULT_RETENTION_INTERVAL_MS);
    timer.unref();
  });
  app.addHook("onClose", async () => {
    closing = true;
    // Runs still going are stopped and marked interrupted before the memory store closes.
    await runs.close();
    clearInterval(timer);
    // The memory store is closed after the app; a run still writing must finish first.
    await running;
  });
}

/**
 * Issue #33: the scheduler starts once the agent is ready (what came due while it was down runs
 * once) and stops before anything closes (preClose), so no scheduled run starts as runs are stopped.
 */
export function runSchedules(app: HttpApp, { scheduler }: AgentServices): void {
  app.addHook("onReady", async () => scheduler.start());
  app.addHook("preClose", async () => scheduler.stop());
}

/** A skill added to or removed from the assistant's folders reaches Skills and lookup on the next check. */
export function watchSkillFolders(app: HttpApp, { abilities }: AgentServices, options: BuildAppOptions): void {
  let folderTimer: NodeJS.Timeout | undefined;
  const checkFolders = () => void abilities.checkFolders().catch((error: unknown) => app.log.error({ err: error }, "skill folder check failed"));
  app.addHook("onReady", async () => {
    // Issue 32: the first check runs as soon as the agent is ready, not before it listens (the first read of the snapshot waits for it).
    checkFolders();
    folderTimer = setInterval(checkFolders, options.skillFoldersIntervalMs ?? 30_000);
    folderTimer.unref();
  });
  app.addHook("onClose", async () => clearInterval(folderTimer));
}

/**
 * Issue 32: at the stop, the sessions', proposals' and registry's current views are brought up to
 * date with what this run appended, so the next start finds them current: it folds nothing, and
 * reads no proposal or ability index until one is needed (agent/memory/log-view.ts `openLogView`).
 */
export function settleViewsAtStop(app: HttpApp, { sessions, proposals, registry }: AgentServices): void {
  app.addHook("onClose", async () => {
    await sessions.settleView();
    await proposals.settleView();
    await registry.settleView();
  });
}

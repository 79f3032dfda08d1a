import { wireServices } from "./agent-services";
import type { BuildAppOptions } from "./app-options";
import { registerGuards, registerRoutes } from "./app-routes";
import { runSchedules, scheduleRetention, settleViewsAtStop, watchSkillFolders } from "./background-work";
import { createHttpApp } from "./http-app";

export { agentLoggerOptions } from "./http-app";

/** Builds the agent (fastify/demo style): services wired, plugins and routes registered, nothing listening yet. */
export async function buildApp(options: BuildAppOptions) {
  const app = createHttpApp(options.logger);
  const services = await wireServices(options, (fields, message) => app.log.error(fields, message));
  const { sessions, events, adapters, proposals, abilities, validation, runs, schedules, scheduler, clock } = services;
  app.decorate("userTab", services.userTab);
  app.decorate("learning", { sessions, events, adapters, proposals, abilities, validation, runs, schedules, scheduler, clock });
  // Fastify runs onClose hooks in the reverse order of their registration, plugins' included: registered first, the
  // views are settled last, once practice, coaching, the sweep and the runs have stopped writing.
  settleViewsAtStop(app, services);
  await registerGuards(app, services, options);
  await registerRoutes(app, services, options);
  watchSkillFolders(app, services, options);
  scheduleRetention(app, services, options);
  runSchedules(app, services);
  return app;
}

export type AgentApp = Awaited<ReturnType<typeof buildApp>>;

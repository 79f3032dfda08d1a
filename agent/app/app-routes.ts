import websocket from "@fastify/websocket";
import { abilityRoutes } from "../abilities/ability-routes";
import { checkpointRoutes } from "../abilities/checkpoint-routes";
import { categoryRoutes } from "../categories/category-routes";
import { runEventsRoute } from "../execution/runs/run-events-route";
import { runRoutes } from "../execution/runs/run-routes";
import { scheduleRoutes } from "../execution/schedules/schedule-routes";
import { grantRoutes } from "../execution/approvals/grant-routes";
import { errorHandler } from "../http/error-handler";
import { coachingRoutes } from "../learning/coaching/coaching-routes";
import { exampleRoutes } from "../learning/examples/example-routes";
import { historyRoutes } from "../learning/sessions/routes/history-routes";
import { observationRoutes } from "../learning/sessions/routes/observation-routes";
import { practiceRoutes } from "../learning/practice/practice-routes";
import { proposalRoutes } from "../learning/proposals/proposal-routes";
import { retentionRoutes } from "../learning/retention/retention-routes";
import { runtimeRoutes } from "../learning/sessions/routes/runtime-routes";
import { sessionEventsRoute } from "../learning/sessions/routes/session-events-route";
import { sessionRoutes } from "../learning/sessions/routes/session-routes";
import { validationRoutes } from "../learning/validation/validation-routes";
import { diskSpaceGuard } from "../memory/disk-space-guard";
import { adapterRoutes } from "../observation/adapter-routes";
import { ingestRoutes } from "../observation/ingest-routes";
import { deprecatedRoutes } from "../routes/deprecated-routes";
import { healthRoutes } from "../routes/health-routes";
import { openApiDocs } from "../routes/openapi-routes";
import { pairingRoutes } from "../routes/pairing-routes";
import { requestGuard } from "../security/request-guard";
import { skillImport } from "../skill-import/skill-import-plugin";
import type { AgentServices } from "./agent-services";
import type { BuildAppOptions } from "./app-options";
import type { HttpApp } from "./http-app";

/** The guards every request passes before a route: the error envelope, the socket, the token and Host, the disk. */
export async function registerGuards(app: HttpApp, { token, pairing }: AgentServices, options: BuildAppOptions): Promise<void> {
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
}

/** Issue #30: a deleted ability leaves its categories, and its runs go with it at once (receipts stay). */
function forgetAbility({ categories, runs }: AgentServices) {
  return async (abilityId: string): Promise<number> => {
    for (const category of categories.list()) {
      for (const item of categories.items(category.category_id).items) {
        if (item.item_id === abilityId && (item.item_kind === "skill" || item.item_kind === "learned_ability"))
          await categories.unassign(category.category_id, item.item_kind, abilityId);
      }
    }
    return (await runs.purgeAbility(abilityId)).purged.length;
  };
}

/** Every route of the local API, each plugin given the services it uses. */
export async function registerRoutes(app: HttpApp, services: AgentServices, options: BuildAppOptions): Promise<void> {
  const { memory } = options;
  const { clock, sessions, events, proposals, abilities, validation, registry, projector, runs, specs, adapters, folders } = services;
  const keepalive = options.keepaliveMs === undefined ? {} : { keepaliveMs: options.keepaliveMs };
  await app.register(openApiDocs);
  await app.register(healthRoutes);
  await app.register(pairingRoutes, { pairing: services.pairing });
  await app.register(runtimeRoutes, { memory });
  await app.register(sessionRoutes, { sessions, proposals });
  await app.register(proposalRoutes, { proposals, sessions, memory, validation });
  await app.register(observationRoutes, { sessions, memory });
  await app.register(abilityRoutes, { abilities, proposals, validation, clock, memory, projector, onAbilityDeleted: forgetAbility(services) });
  await app.register(validationRoutes, { validation });
  await app.register(checkpointRoutes, { memory, sessions, abilities, clock });
  await app.register(sessionEventsRoute, { sessions, events, ...keepalive });
  await app.register(historyRoutes, { sessions, memory });
  await app.register(runRoutes, { runs, specs });
  await app.register(scheduleRoutes, { schedules: services.schedules });
  await app.register(grantRoutes, { approvals: services.approvals, registry });
  await app.register(practiceRoutes, { practice: services.practice });
  await app.register(exampleRoutes, { examples: services.examples });
  await app.register(coachingRoutes, { coaching: services.coaching });
  await app.register(runEventsRoute, { runs, ...keepalive });
  await app.register(adapterRoutes, { adapters });
  await app.register(ingestRoutes, {
    ingest: services.ingest,
    sessions,
    adapters,
    token: services.token,
    tabRelay: services.tabRelay,
    runNotices: services.runNotices,
  });
  await app.register(retentionRoutes, { sessions, memory, clock });
  await app.register(deprecatedRoutes, { sessions });
  const folderSkillNames = async () =>
    new Map(
      (await folders.scan(new Set(registry.all().map((ability) => ability.skill_name)))).map((skill) => [
        skill.name,
        `one of the assistant's own skills (${skill.folder})`,
      ]),
    );
  await app.register(skillImport, { memory, registry, abilities, projector, clock, otherSkillNames: folderSkillNames });
  await app.register(categoryRoutes, { categories: services.categories, onChange: () => abilities.refreshCatalog() });
}

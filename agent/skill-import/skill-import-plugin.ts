import type { FastifyPluginAsync } from "fastify";
import type { AbilityRegistry } from "../abilities/ability-registry";
import type { AbilityService } from "../abilities/ability-service";
import type { WorkspaceProjector } from "../abilities/workspace-projection";
import type { Clock } from "../common/clock";
import type { MemoryStore } from "../memory/memory-store";
import { createImportDecisions } from "./import-decisions";
import { importRoutes } from "./import-routes";
import { createImportFlow } from "./import-flow";
import { createImportStore } from "./import-store";

export interface SkillImportOptions {
  memory: MemoryStore;
  registry: AbilityRegistry;
  abilities: AbilityService;
  projector: WorkspaceProjector;
  clock: Clock;
  /** Skill names held by native and bundled skill folders, so an import cannot shadow them. */
  otherSkillNames?: () => Promise<ReadonlyMap<string, string>>;
}

/** Import Skill (§0C.20) as its own part of the agent: store, flow, decisions and routes. */
export const skillImport: FastifyPluginAsync<SkillImportOptions> = async (app, options) => {
  const store = createImportStore(options.memory, options.clock);
  const flow = createImportFlow({
    memory: options.memory,
    store,
    registry: options.registry,
    clock: options.clock,
    ...(options.otherSkillNames === undefined ? {} : { otherSkillNames: options.otherSkillNames }),
  });
  const decisions = createImportDecisions({
    memory: options.memory,
    store,
    flow,
    registry: options.registry,
    abilities: options.abilities,
    projector: options.projector,
    clock: options.clock,
  });
  await app.register(importRoutes, { flow, decisions, store });
};

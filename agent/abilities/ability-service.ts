import { randomUUID } from "node:crypto";
import type { AbilityAvailabilityEntry, AbilityAvailabilitySnapshot } from "../../shared/abilities/availability";
import type { AbilityLookupQuery, AbilityLookupResult } from "../../shared/abilities/lookup-contract";
import type { AbilityLifecycleAction } from "../../shared/abilities/lifecycle-command";
import type { SkillBundleProposal } from "../../shared/skills/proposal";
import { AppError } from "../errors/app-error";
import { MemoryPaths } from "../memory/memory-paths";
import { importedSkillFolder } from "./imported-skill-folder";
import type { InstalledAbility } from "./ability-registry";
import { lifecycleChange } from "./ability-lifecycle";
import { createAvailabilityViews, type AvailabilityViews } from "./availability-views";
import type { SkillFolderSource } from "./skill-folders";
import type { InstallSagaStep } from "./install-saga-journal";
import { createInstallSaga, type AbilityReceiptWriter, type InstallSaga, type InstallSagaDeps } from "./install-saga";
import { committedInputs, foldersInput, guardViews, readViewsStamp, writeViewsStamp } from "./views-stamp";
import { createAbilityLookupService, type AbilityLookupService } from "./ability-lookup-service";
import { createSentenceEncoder, memorySentenceVectorStore } from "../lookup/meaning/sentence-encoder";
import { createWordNetLexiconLoader } from "../lookup/lexicon/wordnet-lexicon";

export { INSTALL_SAGA_STEPS, type InstallSagaStep } from "./install-saga-journal";

/** The stores the install saga works on (install-saga.ts), and what only the service needs. */
export interface AbilityServiceDeps extends Pick<InstallSagaDeps, "memory" | "registry" | "projector" | "sessions" | "proposals" | "clock"> {
  /** The assistant's own skill folders, listed read-only beside what this agent installed. */
  folders?: SkillFolderSource;
  /** §0C.21 the categories an ability is filed in (the catalog's `category_ids`). */
  categoriesOf?: (abilityId: string) => string[];
  /** Test seam: make the saga fail at a step, to prove each compensation (R11.2-36). */
  failInstallAt?: () => InstallSagaStep | undefined;
}

export interface AbilityService {
  /**
   * At start-up: finishes or undoes any install saga the agent was stopped in the middle of (its
   * journal says which files to put back), then rebuilds the bridge and the availability snapshot
   * from the registry, the saga's commit point.
   */
  recover(): Promise<void>;
  /**
   * Issue 32: compares the skill folders with what the views were last written from and, when they
   * changed, rewrites the snapshot and catalog; answers whether they had. The agent runs it once it
   * is ready (start-up leaves the folders to it), then every 30 s; the first read of the snapshot
   * waits for the first check.
   */
  checkFolders(): Promise<boolean>;
  install(
    proposalId: string,
    lane: "experimental_private" | "approved_workspace",
  ): Promise<{ proposal: SkillBundleProposal; ability_id: string; saga_id: string }>;
  snapshot(): Promise<{ snapshot: AbilityAvailabilitySnapshot; stale: boolean }>;
  lifecycle(abilityId: string, action: AbilityLifecycleAction, reason?: string): Promise<InstalledAbility>;
  /**
   * Deletes an installed ability (issue #30): its projection and skill files go first, then the
   * registry line that says so (the commit point), then the bridge and snapshot are rebuilt. Cut
   * short before the commit, the ability is still listed (its files missing, so not usable) and a
   * second delete finishes; after it, start-up rebuilds the views from the registry.
   */
  remove(abilityId: string): Promise<InstalledAbility>;
  refreshAvailability(): Promise<AbilityAvailabilitySnapshot>;
  /**
   * Registers an ability whose files another part of the agent installed and projected (an
   * imported bundle, §0C.20): the bridge and the snapshot are rebuilt with it, then the registry
   * names it (the commit point). On failure the views are rebuilt without it.
   */
  register(ability: InstalledAbility): Promise<void>;
  /** Rewrites the Skills catalog after a category change (§0C.21); the snapshot is unchanged. */
  refreshCatalog(): Promise<void>;
  /**
   * The same lookup over the current snapshot with `candidate` in place of any entry of its id:
   * would this request find an ability that is not installed yet (an import's trigger test)?
   */
  lookupWith(candidate: AbilityAvailabilityEntry, query: AbilityLookupQuery): Promise<AbilityLookupResult["matches"]>;
  /** Lookups through the wording matcher (issue #15), one WordNet per agent: lookup, explain-match, trigger tests. */
  lookups: AbilityLookupService;
}

/**
 * Installing and managing learned abilities (issue #6, §0C.11–§0C.13, §0C.23): installs one at a
 * time through the install saga (install-saga.ts), the availability snapshot and Skills catalog,
 * registering imported abilities, and the lifecycle commands.
 */
export function createAbilityService(given: AbilityServiceDeps): AbilityService {
  // Issue 32: every write of a derived view goes through the guard, which drops the start-up stamp first.
  const guard = guardViews(given.memory);
  const deps: AbilityServiceDeps = { ...given, memory: guard.memory };
  const now = () => deps.clock.now().toISOString();
  const trigger: TriggerClock = { lastAt: "" };
  const receipt = receiptWriter(deps, now);
  const views = availabilityViewsOf(deps);
  const parts: ServiceParts = { deps, views, receipt, now, trigger, refreshAvailability: () => refreshAvailability(parts), folders: {} };
  const saga = createInstallSaga({
    memory: deps.memory,
    registry: deps.registry,
    projector: deps.projector,
    sessions: deps.sessions,
    proposals: deps.proposals,
    clock: deps.clock,
    views,
    receipt,
    triggered: () => {
      trigger.lastAt = now();
    },
    failInstallAt: deps.failInstallAt,
  });
  /** Installs, registrations and deletes, one at a time (each captures the files the one before rewrote). */
  const oneAtATime = serialQueue();
  const snapshot = async () => {
    await parts.folders.firstCheck;
    const current = (await views.read()) ?? (await views.write(deps.registry.all()));
    return { snapshot: current, stale: trigger.lastAt !== "" && current.snapshot_as_of < trigger.lastAt };
  };
  // Issue #15: the wording matcher; WordNet is read on the first lookup, not at start.
  const lookups = createAbilityLookupService({
    memory: deps.memory,
    snapshot,
    lexicon: createWordNetLexiconLoader(),
    encoder: createSentenceEncoder(undefined, memorySentenceVectorStore(deps.memory)),
  });
  return {
    refreshAvailability: parts.refreshAvailability,
    recover: () => recover(parts, saga, guard.stamped),
    checkFolders: () => checkFolders(parts),
    refreshCatalog: () => views.refreshCatalog(deps.registry.all()),
    register: (ability) => oneAtATime(() => registerAbility(parts, ability)),
    lookupWith: (candidate, query) => lookups.lookupWith(candidate, query),
    lookups,
    // One saga at a time: a second Install or Approve started while one runs would capture
    // "previous" files the first is rewriting. It waits, then meets the state the first left.
    install: (proposalId, lane) => oneAtATime(() => saga.run(proposalId, lane)),
    snapshot,
    remove: (abilityId) => oneAtATime(() => removeAbility(parts, abilityId)),
    lifecycle: (abilityId, action, reason) => changeLifecycle(parts, abilityId, action, reason),
  };
}

/** When the snapshot was last asked to be rewritten: a snapshot older than that is stale (§0C.11B). */
interface TriggerClock {
  lastAt: string;
}

/** What the service's operations share. */
interface ServiceParts {
  deps: AbilityServiceDeps;
  views: AvailabilityViews;
  receipt: AbilityReceiptWriter;
  now: () => string;
  trigger: TriggerClock;
  refreshAvailability: () => Promise<AbilityAvailabilitySnapshot>;
  /** The skill folders as the views were last written from (`seen`), and the first check of them since start-up. */
  folders: { seen?: string; firstCheck?: Promise<boolean> };
}

/** Runs the tasks given to it one after the other; a failed one does not stop the next. */
function serialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = tail.then(task);
    tail = run.catch(() => undefined);
    return run;
  };
}

function receiptWriter(deps: AbilityServiceDeps, now: () => string): AbilityReceiptWriter {
  return async (kind, fields) => {
    await deps.memory.append(MemoryPaths.receipts, {
      receipt_id: randomUUID(),
      receipt_kind: kind,
      ...fields,
      created_at: now(),
      schema_version: 1,
    });
  };
}

/** The availability snapshot and catalog over what this agent installed and, read-only, the assistant's own skill folders. */
function availabilityViewsOf(deps: AbilityServiceDeps): AvailabilityViews {
  const folders = deps.folders;
  return createAvailabilityViews({
    memory: deps.memory,
    projector: deps.projector,
    clock: deps.clock,
    ...(deps.categoriesOf === undefined ? {} : { categoriesOf: deps.categoriesOf }),
    ...(folders === undefined ? {} : { external: async (own: ReadonlySet<string>) => (await folders.scan(own)).map((skill) => skill.entry) }),
  });
}

function writeBridge({ deps, views }: ServiceParts, abilities: readonly InstalledAbility[]): Promise<void> {
  return deps.memory.writeJson(MemoryPaths.bridgeEntriesCurrent, views.bridgeOf(abilities));
}

async function refreshAvailability({ deps, views, receipt, now, trigger }: ServiceParts): Promise<AbilityAvailabilitySnapshot> {
  trigger.lastAt = now();
  const snapshot = await views.write(deps.registry.all());
  await receipt("ability.snapshot.updated", { details: { abilities: snapshot.abilities.length } });
  return snapshot;
}

async function recover(parts: ServiceParts, saga: InstallSaga, stamped: () => void): Promise<void> {
  const { deps, views } = parts;
  await saga.recover();
  await deps.projector.sweep();
  // The registry is what was committed; the bridge and the snapshot are rebuilt from it, which
  // also repairs a lifecycle change the agent stopped in the middle of (its first view write
  // removed the stamp). Issue 32: views written from exactly what the agent committed since are
  // not written again; the skill folders are compared once the agent is ready (`checkFolders`).
  const committed = await committedInputs(deps.memory);
  const stamp = await readViewsStamp(deps.memory);
  if (stamp?.committed === committed) {
    parts.folders.seen = stamp.folders;
    return;
  }
  const folders = await foldersInput(deps.folders);
  const abilities = deps.registry.all();
  await writeBridge(parts, abilities);
  await views.write(abilities);
  await writeViewsStamp(deps.memory, { committed, folders });
  stamped();
  parts.folders.seen = folders;
}

/** The skill folders against what the views were written from: rewritten when they differ (the stamp goes with the first write). */
function checkFolders(parts: ServiceParts): Promise<boolean> {
  const check = (async () => {
    const now = await foldersInput(parts.deps.folders);
    if (now === parts.folders.seen) return false;
    await parts.refreshAvailability();
    parts.folders.seen = now;
    return true;
  })();
  parts.folders.firstCheck ??= check.catch(() => false);
  return check;
}

async function registerAbility(parts: ServiceParts, ability: InstalledAbility): Promise<void> {
  const { deps, views, receipt, now, trigger } = parts;
  const abilities = [...deps.registry.all().filter((candidate) => candidate.ability_id !== ability.ability_id), ability];
  try {
    await writeBridge(parts, abilities);
    trigger.lastAt = now();
    await views.write(abilities);
    await deps.registry.put(ability);
  } catch (error) {
    await writeBridge(parts, deps.registry.all()).catch(() => undefined);
    await views.write(deps.registry.all()).catch(() => views.forget());
    throw error;
  }
  await receipt("ability.snapshot.updated", { ability_id: ability.ability_id });
}

async function removeAbility(parts: ServiceParts, abilityId: string): Promise<InstalledAbility> {
  const { deps, receipt, now } = parts;
  const ability = deps.registry.get(abilityId);
  if (ability === undefined) throw new AppError("ABILITY_NOT_FOUND", `No installed ability ${abilityId}.`);
  await deps.projector.remove(ability.skill_name);
  await deps.memory.remove(MemoryPaths.installedSkill(ability.skill_name));
  await deps.memory.remove(MemoryPaths.capabilityManifest(ability.capability_id));
  await deps.memory.remove(MemoryPaths.capabilityMetadata(ability.capability_id));
  if (ability.source === "imported") await deps.memory.remove(importedSkillFolder(ability.skill_name));
  await deps.registry.remove(abilityId, now());
  await writeBridge(parts, deps.registry.all());
  await receipt("ability.deleted", { ability_id: abilityId });
  await parts.refreshAvailability();
  return ability;
}

async function changeLifecycle(parts: ServiceParts, abilityId: string, action: AbilityLifecycleAction, reason?: string): Promise<InstalledAbility> {
  const { deps, receipt, now } = parts;
  const ability = deps.registry.get(abilityId);
  if (ability === undefined) throw new AppError("ABILITY_NOT_FOUND", `No installed ability ${abilityId}.`);
  const change = lifecycleChange(ability, action, reason);
  const next: InstalledAbility = { ...change.next, updated_at: now() };
  await deps.memory.append(MemoryPaths.activationHistory, {
    ability_id: abilityId,
    action,
    ...(reason === undefined ? {} : { reason }),
    requested_by: "user",
    created_at: next.updated_at,
    schema_version: 1,
  });
  await deps.registry.put(next);
  await writeBridge(parts, deps.registry.all());
  await receipt(change.kind, { ability_id: abilityId, ...(reason === undefined ? {} : { reason: reason.slice(0, 240) }) });
  await parts.refreshAvailability();
  return next;
}

import { randomUUID } from "node:crypto";
import type { LearningReceiptKind } from "../../shared/learning/sessions/receipts";
import { CapabilityManifestSchema, type CapabilityManifest } from "../../shared/capabilities/capability-manifest";
import { toAgentSkillsMarkdown } from "../../shared/skills/agent-skills-format";
import type { SkillBundleProposal } from "../../shared/skills/proposal";
import { parseSkillFrontmatter, type PortableSkillFrontmatter } from "../../shared/skills/frontmatter";
import type { Clock } from "../common/clock";
import { AppError, isAppError } from "../errors/app-error";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import type { AbilityRegistry, InstalledAbility } from "./ability-registry";
import type { AvailabilityViews } from "./availability-views";
import { validationOfInstalledContent } from "./availability-validation";
import type { InstallableProposals, InstallingSessions } from "./learning-ports";
import { InstallSagaJournalSchema, type InstallSagaJournal, type InstallSagaStep } from "./install-saga-journal";
import type { WorkspaceProjector } from "./workspace-projection";
import { DraftFiles, InstalledFiles, SKILL_MD } from "../../shared/skills/skill-folder";

/** Appends a learning receipt (ability-service.ts writes them; the saga adds its own). */
export type AbilityReceiptWriter = (
  kind: LearningReceiptKind,
  fields: { ability_id?: string; proposal_id?: string; learn_session_id?: string; reason?: string; details?: Record<string, unknown> },
) => Promise<void>;

export interface InstallSagaDeps {
  memory: MemoryStore;
  registry: AbilityRegistry;
  projector: WorkspaceProjector;
  sessions: InstallingSessions;
  proposals: InstallableProposals;
  clock: Clock;
  views: AvailabilityViews;
  receipt: AbilityReceiptWriter;
  /** Called when the snapshot is about to be rewritten (what `snapshot().stale` compares against). */
  triggered: () => void;
  /** Test seam: make the saga fail at a step, to prove each compensation (R11.2-36). */
  failInstallAt?: (() => InstallSagaStep | undefined) | undefined;
}

export interface InstallSaga {
  /** Installs (or approves) a reviewed proposal; one at a time is the caller's to ensure. */
  run(proposalId: string, lane: "experimental_private" | "approved_workspace"): Promise<{ proposal: SkillBundleProposal; ability_id: string; saga_id: string }>;
  /** At start-up: finishes each saga past its commit point, undoes every other one its journal names. */
  recover(): Promise<void>;
}

type InstallLane = "experimental_private" | "approved_workspace";

/** What an install was asked to do and read before anything changes. */
interface InstallPlan {
  proposalId: string;
  proposal: SkillBundleProposal;
  sessionId: string;
  lane: InstallLane;
  approving: boolean;
  files: Record<string, string>;
  markdown: string;
  frontmatter: PortableSkillFrontmatter;
  skillName: string;
  existing: InstalledAbility | undefined;
  manifest: CapabilityManifest;
  abilityId: string;
  installedFolder: string;
  at: string;
}

const fail = (deps: InstallSagaDeps, step: InstallSagaStep) => {
  if (deps.failInstallAt?.() === step)
    throw new AppError(step === "bridge" ? "BRIDGE_REBUILD_FAILED" : "MEMORY_WRITE_FAILED", `Install step "${step}" failed.`);
};

/** The proposal, its session and its draft, checked: may this lane install it now, under this name? */
async function planInstall(deps: InstallSagaDeps, proposalId: string, lane: InstallLane): Promise<InstallPlan & { sessionState: string }> {
  const detail = await deps.proposals.detail(proposalId);
  const proposal = detail.proposal;
  const sessionId = proposal.learn_session_id as string;
  const session = deps.sessions.get(sessionId);
  const approving = lane === "approved_workspace";
  const allowedFrom = approving ? ["ready_for_review", "installed_private"] : ["ready_for_review"];
  if (!allowedFrom.includes(session.state)) {
    throw new AppError(
      "INVALID_LEARN_STATE_TRANSITION",
      `A proposal is ${approving ? "approved" : "installed"} from review, not while the session is ${session.state}.`,
    );
  }
  const files = await deps.proposals.draftFiles(proposalId);
  const markdown = files[DraftFiles.skill] ?? "";
  const frontmatter = parseSkillFrontmatter(markdown);
  if (frontmatter === undefined) throw new AppError("CHECKPOINT_LINT_FAILED", "The draft SKILL.md has no valid frontmatter; revise the proposal.");
  const skillName = frontmatter.name;
  const existing = deps.registry.bySkillName(skillName);
  // Another proposal's skill of the same name may only be replaced by an improvement of it: a
  // session that improves an existing skill, whose proposal names that installed ability.
  const improves =
    existing !== undefined && existing.proposal_id !== proposalId && session.target_kind === "existing_skill" && proposal.ability_id === existing.ability_id;
  if (existing !== undefined && existing.proposal_id !== proposalId && !improves) {
    throw new AppError(
      "INSTALL_LANE_DENIED",
      proposal.ability_id === existing.ability_id
        ? `A newer version of "${skillName}" is installed; review and install that one instead.`
        : `A skill named "${skillName}" is already installed; rename this one before installing it.`,
    );
  }
  // New content never reaches the workspace or shared lane without an approval (DESIGN §4): an
  // improvement of an approved or shared skill is approved, not installed privately over it.
  if (improves && !approving && existing.install_lane !== "experimental_private") {
    throw new AppError(
      "INSTALL_LANE_DENIED",
      `"${skillName}" is ${existing.install_lane === "shared_promoted" ? "shared" : "approved for your workspace"}; approve this improvement to replace it (installing it privately would take it out of that lane).`,
    );
  }
  const manifest = CapabilityManifestSchema.parse(JSON.parse(files[DraftFiles.manifest] ?? "{}"));
  return {
    proposalId,
    proposal,
    sessionId,
    sessionState: session.state,
    lane,
    approving,
    files,
    markdown,
    frontmatter,
    skillName,
    existing,
    manifest,
    abilityId: existing?.ability_id ?? `learned.${skillName}`,
    installedFolder: MemoryPaths.installedSkill(skillName),
    at: deps.clock.now().toISOString(),
  };
}

/**
 * The journal, written before anything changes: every file the saga writes, as it was, so a
 * failure puts each back byte for byte (the previous version of an improved skill, the bridge, the
 * snapshot and the catalog), and the assistant's previous copy.
 */
async function writeJournal(deps: InstallSagaDeps, plan: InstallPlan, sagaId: string, sessionState: string): Promise<InstallSagaJournal> {
  const capabilityId = plan.manifest.capability_id;
  const written = [
    `${plan.installedFolder}/${InstalledFiles.skill}`,
    `${plan.installedFolder}/${InstalledFiles.triggerTests}`,
    `${plan.installedFolder}/${InstalledFiles.flow}`,
    `${plan.installedFolder}/${InstalledFiles.checkpoints}`,
    `${plan.installedFolder}/${InstalledFiles.parameters}`,
    `${plan.installedFolder}/support-packs.json`,
    MemoryPaths.capabilityManifest(capabilityId),
    MemoryPaths.capabilityMetadata(capabilityId),
    MemoryPaths.bridgeEntriesCurrent,
    MemoryPaths.availabilityCurrent,
    MemoryPaths.catalogCurrent,
  ];
  const previous = await Promise.all(written.map(async (file) => ({ path: file, text: (await deps.memory.readText(file)) ?? null })));
  const journal: InstallSagaJournal = {
    saga_id: sagaId,
    proposal_id: plan.proposalId,
    learn_session_id: plan.sessionId,
    ability_id: plan.abilityId,
    skill_name: plan.skillName,
    lane: plan.lane,
    approving_installed: plan.approving && sessionState === "installed_private",
    existed: plan.existing !== undefined,
    previous,
    previous_projection: (await deps.projector.read(plan.skillName)) ?? null,
    started_at: plan.at,
  };
  await deps.memory.writeJson(MemoryPaths.installSaga(sagaId), journal);
  return journal;
}

/** Step 1: the canonical files in ELNOR_MEMORY (§0C.23 target paths). */
async function materialize(deps: InstallSagaDeps, plan: InstallPlan): Promise<void> {
  const { files, installedFolder, proposal } = plan;
  const capabilityId = plan.manifest.capability_id;
  await deps.memory.writeText(`${installedFolder}/${InstalledFiles.skill}`, plan.markdown);
  await deps.memory.writeText(`${installedFolder}/${InstalledFiles.triggerTests}`, files[DraftFiles.triggerTests] ?? "{}");
  await deps.memory.writeText(`${installedFolder}/${InstalledFiles.flow}`, files[DraftFiles.flow] ?? "{}");
  // What a run needs beside the flow (issue #21 run-spec): its checkpoints and its inputs.
  await deps.memory.writeText(`${installedFolder}/${InstalledFiles.checkpoints}`, files[DraftFiles.checkpoints] ?? "[]");
  await deps.memory.writeText(`${installedFolder}/${InstalledFiles.parameters}`, files[DraftFiles.parameters] ?? "[]");
  await deps.memory.writeJson(`${installedFolder}/support-packs.json`, { support_pack_refs: proposal.support_pack_refs });
  await deps.memory.writeJson(MemoryPaths.capabilityManifest(capabilityId), plan.manifest);
  await deps.memory.writeJson(MemoryPaths.capabilityMetadata(capabilityId), {
    capability_id: capabilityId,
    summary: plan.frontmatter.description,
    source_refs: [`proposal:${plan.proposalId}`, `learn_session:${plan.sessionId}`],
    control_surface_notes: [],
    dependency_refs: [],
    page_knowledge_refs: [],
    ui_anchor_refs: [],
    bucket_refs: [],
    known_failure_modes: [],
    schema_version: 1,
  });
}

/** Step 2: the read-only copy in the assistant's workspace, an Agent Skills bundle (DESIGN §8); ELNOR_MEMORY keeps §0.2C. */
async function project(deps: InstallSagaDeps, plan: InstallPlan): Promise<void> {
  const capabilityId = plan.manifest.capability_id;
  await deps.projector.project(plan.skillName, {
    [SKILL_MD]: toAgentSkillsMarkdown(plan.markdown),
    [`capabilities/${capabilityId}.json`]: `${JSON.stringify(plan.manifest, null, 2)}\n`,
    [InstalledFiles.triggerTests]: plan.files[DraftFiles.triggerTests] ?? "{}",
    "support-packs/README.md": "No support packs.\n",
  });
}

/** The registry entry the install commits. */
function installedAbilityOf(plan: InstallPlan, validation: Awaited<ReturnType<typeof validationOfInstalledContent>>): InstalledAbility {
  const { proposal, existing, frontmatter, at } = plan;
  return {
    ability_id: plan.abilityId,
    skill_name: plan.skillName,
    capability_id: plan.manifest.capability_id,
    title: proposal.title,
    family: plan.manifest.family,
    install_lane: plan.lane,
    // An improvement replaces the content, not the user's decisions about the ability.
    enabled: existing?.enabled ?? true,
    quarantined: existing?.quarantined ?? false,
    source: "learned",
    trigger_phrases: proposal.trigger_phrases,
    negative_triggers: proposal.negative_triggers,
    project_scopes: [],
    preferred_control_surfaces: frontmatter.preferred_control_surfaces,
    support_pack_refs: proposal.support_pack_refs,
    proposal_id: plan.proposalId,
    learn_session_id: plan.sessionId,
    // §0C.11A: the validation of this very revision, if any; an improvement starts without the old one's.
    ...validation,
    skill_version: frontmatter.version,
    installed_at: existing?.installed_at ?? at,
    updated_at: at,
  };
}

/** What the caller is told when a step failed (the journal has already put everything back). */
function installFailure(error: unknown, step: InstallSagaStep, approvingInstalled: boolean, existed: boolean): AppError {
  if (approvingInstalled) {
    const message = `Approval failed at "${step}"; the ability stays installed for you only, as it was.`;
    if (isAppError(error)) return new AppError(error.code, `${message} ${error.message}`.slice(0, 240));
    return new AppError(step === "bridge" ? "BRIDGE_REBUILD_FAILED" : "INTERNAL_ERROR", message, { cause: error });
  }
  const outcome = existed ? "the installed version stays as it was" : "nothing was installed";
  if (isAppError(error))
    return new AppError(error.code, `Install failed at "${step}"; the proposal is quarantined and ${outcome}. ${error.message}`.slice(0, 240));
  return new AppError(
    step === "bridge" ? "BRIDGE_REBUILD_FAILED" : "INTERNAL_ERROR",
    `Install failed at "${step}"; the proposal is quarantined and ${outcome}.`,
    { cause: error },
  );
}

/** After the commit point (the registry names the new install): the proposal and session follow. */
async function complete(deps: InstallSagaDeps, journal: InstallSagaJournal, capabilityId: string): Promise<SkillBundleProposal> {
  const approving = journal.lane === "approved_workspace";
  const updated = await deps.proposals.recordInstall(journal.proposal_id, {
    proposal_state: approving ? "approved" : "installed_private",
    install_lane: journal.lane,
    ability_id: journal.ability_id,
    primary_capability_id: capabilityId,
  });
  const state = deps.sessions.get(journal.learn_session_id).state;
  const path =
    state === "installing_private" ? ["installed_private" as const] : journal.approving_installed && state === "installed_private" ? ["approved" as const] : [];
  await deps.sessions.advance(journal.learn_session_id, path, { ability_id: journal.ability_id }, [
    {
      receipt: "learn.install.completed",
      event: "learn.install.completed",
      payload: { proposal_id: journal.proposal_id, ability_id: journal.ability_id, install_lane: journal.lane, saga_id: journal.saga_id },
    },
  ]);
  await deps.memory.remove(MemoryPaths.installSaga(journal.saga_id));
  return updated;
}

/**
 * Compensation (§0C.13, R11.2-36): nothing half-installed stays visible or usable, and what was
 * installed before stays exactly as it was. The proposal is quarantined, except when approving an
 * ability already installed privately, which stays as it was.
 */
async function undo(deps: InstallSagaDeps, journal: InstallSagaJournal, step: InstallSagaStep | "interrupted"): Promise<void> {
  if (journal.previous_projection === null) await deps.projector.remove(journal.skill_name).catch(() => undefined);
  else await deps.projector.project(journal.skill_name, journal.previous_projection).catch(() => undefined);
  if (!journal.existed) await deps.memory.remove(MemoryPaths.installedSkill(journal.skill_name)).catch(() => undefined);
  for (const { path, text } of journal.previous) {
    if (text === null) await deps.memory.remove(path).catch(() => undefined);
    else await deps.memory.writeText(path, text).catch(() => undefined);
  }
  deps.views.forget();
  const failed = { receipt: "learn.install.failed" as const, payload: { proposal_id: journal.proposal_id, saga_id: journal.saga_id, failed_step: step } };
  if (journal.approving_installed) {
    await deps.sessions.advance(journal.learn_session_id, [], {}, [failed]).catch(() => undefined);
  } else {
    await deps.proposals.recordInstall(journal.proposal_id, { proposal_state: "quarantined", install_lane: "quarantined" }).catch(() => undefined);
    const state = deps.sessions.get(journal.learn_session_id).state;
    await deps.sessions.advance(journal.learn_session_id, state === "quarantined" ? [] : ["quarantined"], {}, [failed]).catch(() => undefined);
  }
  await deps.memory.remove(MemoryPaths.installSaga(journal.saga_id)).catch(() => undefined);
}

/** Runs the four steps; on a failure, undoes what the journal names and says where it failed. */
async function runSteps(
  deps: InstallSagaDeps,
  plan: InstallPlan,
  journal: InstallSagaJournal,
  validation: Awaited<ReturnType<typeof validationOfInstalledContent>>,
): Promise<void> {
  const { abilityId, proposalId } = plan;
  let step: InstallSagaStep = "materialize";
  try {
    fail(deps, "materialize");
    await materialize(deps, plan);
    step = "project";
    fail(deps, "project");
    await project(deps, plan);
    // 3. Rebuild the capability bridge with the new ability in it.
    step = "bridge";
    const ability = installedAbilityOf(plan, validation);
    const abilities = [...deps.registry.all().filter((candidate) => candidate.ability_id !== abilityId), ability];
    await deps.receipt("bridge.rebuild.started", { ability_id: abilityId, proposal_id: proposalId });
    fail(deps, "bridge");
    await deps.memory.writeJson(MemoryPaths.bridgeEntriesCurrent, deps.views.bridgeOf(abilities));
    await deps.receipt("bridge.rebuild.completed", { ability_id: abilityId, proposal_id: proposalId });
    // 4. Refresh the availability snapshot and catalog; only now is the ability registered.
    step = "availability";
    fail(deps, "availability");
    deps.triggered();
    await deps.views.write(abilities);
    await deps.registry.put(ability);
    await deps.receipt("ability.snapshot.updated", { ability_id: abilityId });
  } catch (error) {
    await undo(deps, journal, step);
    throw installFailure(error, step, journal.approving_installed, plan.existing !== undefined);
  }
}

/** Installs (or approves) a reviewed proposal, journaled first; see createInstallSaga. */
async function install(deps: InstallSagaDeps, proposalId: string, lane: InstallLane) {
  const { sessionState, ...plan } = await planInstall(deps, proposalId, lane);
  const sagaId = randomUUID();
  // Read before anything changes, so a failed read leaves nothing to undo.
  const validation = await validationOfInstalledContent(deps.memory, plan.proposal);
  const journal = await writeJournal(deps, plan, sagaId, sessionState);
  // Approving what is already installed privately upgrades a working ability: until the saga
  // has finished, the proposal, the session and the ability stay exactly as they were.
  const started = {
    receipt: "learn.install.started" as const,
    event: "learn.install.started" as const,
    payload: { proposal_id: proposalId, saga_id: sagaId, install_lane: lane },
  };
  if (journal.approving_installed) {
    await deps.sessions.advance(plan.sessionId, [], {}, [started]);
  } else {
    // The session moves first so a crash mid-saga leaves it visibly installing, never "installed".
    await deps.sessions.advance(plan.sessionId, [plan.approving ? "approved" : "installing_private"], {}, [started]);
    await deps.proposals.recordInstall(proposalId, { proposal_state: plan.approving ? "approved" : "installing_private", install_lane: "pending" });
  }
  await runSteps(deps, plan, journal, validation);
  const updated = await complete(deps, journal, plan.manifest.capability_id);
  return { proposal: updated, ability_id: plan.abilityId, saga_id: sagaId };
}

/**
 * The install saga (§0C.13, R11.2-36): materialize → project → rebuild bridge → refresh
 * availability, journaled first so that a failure, or an agent stopped half-way, is put back byte
 * for byte; the registry naming the ability is the commit point.
 */
export function createInstallSaga(deps: InstallSagaDeps): InstallSaga {
  return {
    run: (proposalId, lane) => install(deps, proposalId, lane),
    async recover() {
      const names = await deps.memory.list(MemoryPaths.installSagas).catch(() => []);
      for (const name of names.filter((candidate) => candidate.endsWith(".json")).sort()) {
        const file = `${MemoryPaths.installSagas}/${name}`;
        const journal = await deps.memory.readJson(file, InstallSagaJournalSchema).catch(() => undefined);
        if (journal === undefined) {
          // Written atomically, so never half a journal: this one is not ours to read.
          await deps.memory.remove(file);
          continue;
        }
        const installed = deps.registry.get(journal.ability_id);
        const committed = installed !== undefined && installed.proposal_id === journal.proposal_id && installed.install_lane === journal.lane;
        if (committed) await complete(deps, journal, installed.capability_id);
        else await undo(deps, journal, "interrupted");
      }
    },
  };
}

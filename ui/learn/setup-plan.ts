import type { CreateLearnSessionRequest } from "../../shared/learning/sessions/create-learn-session";
import type { BuildPolicy, LearnExecutionMode } from "../../shared/learning/sessions/learn-session";
import type { TestPolicy } from "../../shared/learning/sessions/test-policy";
import type { SetRedactionRequest } from "../../shared/observation/capture-protocol";
import { DESKTOP_APP_FAMILY } from "../../shared/learning/observed-actions/desktop-detail";
import type { SetupEntryMode } from "../common/learn-navigation.svelte";
import type { SetupSeed } from "../common/trace-seed-view";

export type TextMasking = SetRedactionRequest["text_entry"];

/** What the session set-up form holds (issue #7 "Session set-up"). */
export interface SetupForm {
  entryMode: SetupEntryMode;
  /** Allow-list entries, already normalized (ui/common/site-entry). */
  sites: string[];
  /** "Watch My Actions": only ever sets `observation_mode` (§0B.6, §0C.18). */
  watchMyActions: boolean;
  /** "This computer": commands run in a terminal, reported by a desktop adapter — with the sites or instead of them. */
  watchThisComputer: boolean;
  masking: TextMasking;
  /** The plain consent step for `none` (§0C.22 privacy rule 4). */
  consentToRecordText: boolean;
  buildPolicy: BuildPolicy;
  executionMode: LearnExecutionMode;
  /** Test policy: rehearse without the final committing step. */
  dryRun: boolean;
  /** Test policy: the only domains a rehearsal may touch. */
  safeDomains: string[];
  /** Improving Existing Skill: the skill to improve. */
  targetSkillId: string;
  /** Learn From This (§0B.6): the run or session the new session starts from. */
  seed: SetupSeed | undefined;
}

export interface SetupPlan {
  create: CreateLearnSessionRequest;
  /** Sent only when actions are watched; `none` carries the consent. */
  redaction: SetRedactionRequest | undefined;
  testPolicy: TestPolicy;
  /** The sites to ask Chrome for at Start. */
  sitesToGrant: string[];
}

export function defaultSetupForm(entryMode: SetupEntryMode, sites: string[]): SetupForm {
  return {
    entryMode,
    sites,
    watchMyActions: true,
    watchThisComputer: false,
    masking: "mask_text",
    consentToRecordText: false,
    buildPolicy: "build_then_review",
    executionMode: "guided",
    dryRun: true,
    safeDomains: [],
    targetSkillId: "",
    seed: undefined,
  };
}

/** Problems a person must fix before Start, in words; empty when the form can be sent. */
export function setupProblems(form: SetupForm): string[] {
  const problems: string[] = [];
  if (form.watchMyActions && form.sites.length === 0 && !form.watchThisComputer) {
    problems.push("Add at least one site to watch, choose This computer, or turn off Watch My Actions.");
  }
  if (form.watchMyActions && form.masking === "none" && !form.consentToRecordText) {
    problems.push("Recording typed text needs your consent below, or choose a masking mode.");
  }
  if (form.entryMode === "improving_existing_skill" && form.targetSkillId.trim() === "") problems.push("Name the skill to improve.");
  if (form.buildPolicy === "private_auto_install") problems.push("Automatic private install is not available yet; choose another build policy.");
  return problems;
}

export function planSetup(form: SetupForm, newId: () => string): { ok: true; plan: SetupPlan } | { ok: false; problems: string[] } {
  const problems = setupProblems(form);
  if (problems.length > 0) return { ok: false, problems };
  const watching = form.watchMyActions;
  const improving = form.entryMode === "improving_existing_skill";
  const sites = watching ? [...new Set(form.sites)] : [];
  const create: CreateLearnSessionRequest = {
    entry_mode: form.entryMode,
    observation_mode: watching ? "outside_agent" : "none",
    build_policy: form.buildPolicy,
    execution_mode: form.executionMode,
    target_kind: improving ? "existing_skill" : "new_skill",
    target_app_whitelist: sites,
    ask_before_build: form.buildPolicy === "ask_before_build",
    allow_private_install: false,
    ...(watching && form.watchThisComputer ? { target_app_family: DESKTOP_APP_FAMILY } : sites.length > 0 ? { target_app_family: "browser" } : {}),
    ...(improving ? { target_skill_id: form.targetSkillId.trim() } : {}),
    ...(form.seed === undefined ? {} : { source_trace: form.seed.source }),
  };
  const safeDomains = form.safeDomains.length > 0 ? form.safeDomains : sites;
  const testPolicy: TestPolicy = {
    policy_id: newId(),
    mode: form.dryRun ? "dry_run_only" : "safe_target_only",
    safe_targets: [],
    forbid_destructive_writes: true,
    forbid_external_send: true,
    allowed_domains: [...new Set(safeDomains)].map((domain) => domain.slice(0, 120)),
    max_actions: 40,
    cleanup_required: false,
    schema_version: 1,
  };
  const redaction: SetRedactionRequest | undefined = watching
    ? { text_entry: form.masking, consent: form.masking === "none" && form.consentToRecordText }
    : undefined;
  return { ok: true, plan: { create, redaction, testPolicy, sitesToGrant: sites } };
}

import type { LearnSessionState, LearningEntryMode } from "../../shared/learning/sessions/learn-session";
import type { PendingAbilityUiState } from "../../shared/learning/sessions/pending-ability-ui-state";
import type { LearningReceiptKind } from "../../shared/learning/sessions/receipts";
import type { LearnHistoryResponse } from "../../shared/learning/route-contracts";

/**
 * Every user-facing name of the Learn UI in one place (§0B.3–§0B.8, §0C.15). Generic, never
 * naming the agent (§0B.4); none of the deprecated labels of §0C.18 (ui/forbidden-labels.ts).
 */

export const LEARN_PAGE_TITLE = "Ability Learning";
export const CREATE_HEADING = "Create new ability by:";
/** In place of the cards while the paired agent's description is read (which ways it offers). */
export const READING_AGENT_FEATURES = "Checking what your agent can do…";
/** The views that wait for that description, and say so when it could not be read. */
export type FeaturesUnreadPlace = "learn_cards" | "skills";
/** Before the reason, when that description could not be read: what the view shows may undersell the agent. */
export const FEATURES_UNREAD: Record<FeaturesUnreadPlace, string> = {
  learn_cards: "Could not check what your agent can do, so some ways below may show as not available.",
  skills: "Could not check what your agent can do, so some skill controls below may show as not available.",
};

/** A skill's lifecycle controls while what the agent offers could not be checked (Skills says why, with Try again). */
export const CONTROLS_UNCHECKED = "Activate, deactivate, quarantine and promote: unknown until your agent's description is read (Try again above).";

export type LearnTab = "new" | "active" | "pending" | "history";
/** §0B.8 the four tabs, in order. */
export const LEARN_TABS: ReadonlyArray<{ id: LearnTab; label: string }> = [
  { id: "new", label: "Learn New Ability" },
  { id: "active", label: "Active Capability Learning" },
  { id: "pending", label: "Pending Abilities" },
  { id: "history", label: "History" },
];

/** §0B.5 the five cards, in the spec's order. */
export const ENTRY_MODE_LABEL: Record<LearningEntryMode, string> = {
  demonstrating_skill: "Demonstrating Skill",
  coaching_agent: "Coaching Agent",
  autonomous_agent_practice: "Autonomous Agent Practice",
  improving_existing_skill: "Improving Existing Skill",
  import_skill: "Import Skill",
};

export const ENTRY_MODE_BLURB: Record<LearningEntryMode, string> = {
  demonstrating_skill: "Do the task once in this browser while your actions are watched on the sites you choose.",
  coaching_agent: "Guide your assistant step by step while it does the task.",
  autonomous_agent_practice: "Let your assistant practise the task on safe targets and learn from it.",
  improving_existing_skill: "Show a better way to do something a skill already does.",
  import_skill: "Bring in a skill from a file or a pack.",
};

/**
 * What a card or action cannot do yet, and why (§0C.28 partial deployment). Shown next to the
 * disabled control: the UI never pretends a capability exists.
 */
export const NOT_AVAILABLE_YET = {
  coaching_agent: "Not available yet: coaching needs an agent that can take turns with you in a tab of this browser.",
  autonomous_agent_practice: "Not available yet: practice runs need rehearsal in a managed browser, which arrives with validation in the next agent update.",
  import_skill: "Not available yet: skill import arrives with a later agent update.",
  validate: "Validation arrives with the next agent update.",
  install: "Installing arrives with the next agent update.",
  approve: "Approval arrives with the next agent update, after validation and install.",
  request_more_tests: "Requesting more tests arrives with a later agent update.",
  private_auto_install: "Not available yet: the agent does not install anything on its own; you install from the proposal review.",
  skills: "The Skills list is not available yet: it arrives with the next agent update. Learned abilities wait under Pending Abilities until then.",
  ability_controls: "Activate, deactivate, quarantine and promote arrive with the next agent update.",
  skill_picker: "Type the name of the skill to improve (no list of skills is available from this agent).",
  checkpoint_verification: "Checkpoint verification is not available yet: progress appears here once rehearsals can check each checkpoint.",
  checkpoint_lint: "Checkpoint lint not available — manual review recommended.",
  skill_markdown: "The SKILL.md preview is not available yet on this agent.",
  observations: "The captured steps are not available yet on this agent; the session still records them.",
  exclude: "Excluding steps is not available yet on this agent.",
} as const;

/** §0C.1 internal states, as a person reads them. */
export const SESSION_STATE_LABEL: Record<LearnSessionState, string> = {
  idle: "Ready to start",
  armed: "Watching — waiting for your first action",
  capturing: "Recording",
  paused: "Paused",
  stopped: "Stopped",
  reviewing: "Reviewing what was captured",
  awaiting_questions: "Waiting for your answers",
  drafting_proposal: "Drafting the proposal",
  testing_proposal: "Testing the proposal",
  ready_for_review: "Ready for your review",
  installing_private: "Installing for you only",
  installed_private: "Active for you only",
  approved: "Approved",
  rejected: "Rejected",
  cancelled: "Cancelled",
  quarantined: "Quarantined",
};

/** §0C.6 the Pending Abilities groups. */
export const PENDING_UI_STATE_LABEL: Record<PendingAbilityUiState, string> = {
  capturing: "Capturing",
  awaiting_input: "Waiting for your answers",
  drafting: "Drafting",
  testing: "Testing",
  ready_for_review: "Ready for review",
  private_active: "Active for you only",
  revision_required: "Needs your action",
};

export type HistoryOutcome = NonNullable<LearnHistoryResponse["items"][number]["outcome"]>;
export const OUTCOME_LABEL: Record<HistoryOutcome, string> = {
  approved: "Approved",
  rejected: "Rejected",
  cancelled: "Cancelled",
  in_progress: "In progress",
  quarantined: "Quarantined",
};

const RECEIPT_LABEL: Partial<Record<LearningReceiptKind, string>> = {
  "learn.session.started": "Session created",
  "learn.capture.armed": "Watching started",
  "learn.capture.started": "Recording started",
  "learn.capture.paused": "Recording paused",
  "learn.capture.resumed": "Recording resumed",
  "learn.capture.stopped": "Recording stopped",
  "learn.capture.redaction_set": "Text masking chosen",
  "learn.session.cancelled": "Session cancelled",
  "learn.proposal.created": "Proposal drafted",
  "learn.proposal.questions_requested": "Questions asked",
  "learn.proposal.questions_answered": "Questions answered",
  "learn.proposal.revision_requested": "Revision requested",
  "learn.proposal.approved": "Proposal approved",
  "learn.proposal.rejected": "Proposal rejected",
  "learn.validation.started": "Validation started",
  "learn.validation.completed": "Validation finished",
  "learn.install.started": "Install started",
  "learn.install.completed": "Install finished",
  "learn.install.failed": "Install failed",
};

/** A receipt kind as a person reads it; kinds without a name yet fall back to their words. */
export function receiptLabel(kind: LearningReceiptKind): string {
  return RECEIPT_LABEL[kind] ?? kind.replace(/[._]/g, " ").replace(/^./, (first) => first.toUpperCase());
}

/** A time of day in the reader's locale (for steps within one session). */
export function formatClock(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleTimeString(undefined, { timeStyle: "medium" });
}

/** Day and time without the year, for feeds (receipts). */
export function formatShort(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });
}

/** A timestamp in the reader's locale, short. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

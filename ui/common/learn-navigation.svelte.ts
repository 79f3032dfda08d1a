import type { LearnTab } from "./learn-labels";

/** Which set-up card the person chose under Learn New Ability. */
export type SetupEntryMode = "demonstrating_skill" | "improving_existing_skill";

export type AbilitiesView = "learn" | "skills";

/** Where the person is: Abilities → Learn (which tab, which set-up) or Skills, and the open drawer. */
export class LearnNavigation {
  view = $state<AbilitiesView>("learn");
  tab = $state<LearnTab>("new");
  /** The set-up form shown under Learn New Ability, if a card was chosen. */
  setupMode = $state<SetupEntryMode | null>(null);
  /** The Import Skill flow is open under Learn New Ability (§0C.20). */
  importOpen = $state(false);
  /** The Autonomous Agent Practice set-up is open under Learn New Ability (issue #16). */
  practiceOpen = $state(false);
  /** The Coaching Agent set-up is open under Learn New Ability (issue #16). */
  coachingOpen = $state(false);
  /** The proposal open in the review drawer. */
  drawerProposalId = $state<string | null>(null);

  showTab(tab: LearnTab): void {
    this.view = "learn";
    this.tab = tab;
  }

  openProposal(proposalId: string): void {
    this.drawerProposalId = proposalId;
  }

  closeProposal(): void {
    this.drawerProposalId = null;
  }
}

import type { ExampleTarget } from "../../shared/learning/proposals/skill-example";
import { describeFailure } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";
import { exampleRequestsOf, type ExampleChoice } from "../common/trace-seed-view";

/** Proposal states that can still take a revision (the agent says so if the session cannot). */
const OPEN_PROPOSAL = new Set(["draft", "ready_for_review", "awaiting_questions", "quarantined", "testing"]);

interface TargetOption {
  key: string;
  label: string;
  target: ExampleTarget;
}

/**
 * Use as Example (§0B.6, issue #16): the small picker that adds a run or a finished session to a
 * proposal under review or an installed skill, with the requests it answers as trigger tests.
 */
export class UseAsExampleState {
  example = $state.raw<ExampleChoice | null>(null);
  targets = $state.raw<TargetOption[]>([]);
  targetKey = $state("");
  requests = $state("");
  loading = $state(false);
  busy = $state(false);
  error = $state<string | null>(null);
  readonly #deps: LearnDeps;
  readonly #onadded: (proposalId: string) => void;

  constructor(deps: LearnDeps, onadded: (proposalId: string) => void) {
    this.#deps = deps;
    this.#onadded = onadded;
  }

  /** Opens the picker for this example; `preferAbility` is chosen first when it is a target (a run's own skill). */
  async open(example: ExampleChoice, preferAbility?: string): Promise<void> {
    this.example = example;
    this.requests = example.suggestion;
    this.error = null;
    this.targets = [];
    this.targetKey = "";
    this.loading = true;
    try {
      const [proposals, abilities] = await Promise.all([
        this.#deps.client.listProposals(1, 50),
        this.#deps.features.has("availability") ? this.#deps.client.abilityAvailability().then((answer) => answer.abilities) : Promise.resolve([]),
      ]);
      this.targets = [
        ...proposals.proposals
          .filter((proposal) => OPEN_PROPOSAL.has(proposal.proposal_state))
          .map((proposal) => ({
            key: `proposal:${proposal.proposal_id}`,
            label: `Proposal: ${proposal.title}`,
            target: { proposal_id: proposal.proposal_id },
          })),
        ...abilities
          .filter((ability) => ability.source === "learned" || ability.source === "promoted")
          .map((ability) => ({ key: `ability:${ability.ability_id}`, label: `Skill: ${ability.title}`, target: { ability_id: ability.ability_id } })),
      ];
      const preferred = preferAbility === undefined ? undefined : this.targets.find((option) => option.key === `ability:${preferAbility}`);
      this.targetKey = (preferred ?? this.targets[0])?.key ?? "";
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
    } finally {
      this.loading = false;
    }
  }

  close(): void {
    this.example = null;
  }

  async submit(): Promise<void> {
    const example = this.example;
    const target = this.targets.find((option) => option.key === this.targetKey)?.target;
    if (example === null || this.busy) return;
    if (target === undefined) {
      this.error = "Choose the proposal or skill to add it to.";
      return;
    }
    const requests = exampleRequestsOf(this.requests);
    if (!requests.ok) {
      this.error = requests.problem;
      return;
    }
    this.busy = true;
    this.error = null;
    try {
      const added = await this.#deps.client.useAsExample({ example: example.source, target, trigger_tests: requests.requests, schema_version: 1 });
      this.example = null;
      this.#onadded(added.proposal_id);
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
    } finally {
      this.busy = false;
    }
  }
}

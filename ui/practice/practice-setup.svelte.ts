import type { AbilityRunSpec } from "../../shared/execution/run-contract";
import type { PracticeReport } from "../../shared/learning/sessions/practice";
import type { LearnDeps } from "../common/learn-deps";

/** One line "name = value" per input; a blank line starts the next set (issue #16). */
export function parseInputSets(text: string): Array<Record<string, string>> {
  return text
    .split(/\n\s*\n/)
    .map((block) =>
      Object.fromEntries(
        block
          .split("\n")
          .map((line) => /^\s*([A-Za-z0-9_]+)\s*=\s*(.*?)\s*$/.exec(line))
          .filter((match): match is RegExpExecArray => match !== null)
          .map((match) => [match[1] as string, match[2] as string]),
      ),
    )
    .filter((set) => Object.keys(set).length > 0);
}

/** What the set-up is prefilled with from the skill: its description as the goal, its checkpoints as success, its sites. */
export function practicePrefill(spec: Pick<AbilityRunSpec, "description" | "checkpoints" | "sites">): { goal: string; success: string; sites: string } {
  const goals = spec.checkpoints.map((checkpoint) => checkpoint.goal.trim().replace(/[.\s]+$/, "")).filter((goal) => goal !== "");
  return {
    goal: spec.description.trim().slice(0, 600),
    success: (goals.length === 0 ? "" : `${goals.join("; ")}.`).slice(0, 600),
    sites: spec.sites.join(", "),
  };
}

/**
 * Autonomous Agent Practice set-up (issue #16): which installed skill, the sites it may open, how
 * many rounds, the test inputs (kept only in this form and the agent's memory for the session),
 * then the practice's rounds and outcome as the agent reports them.
 */
export class PracticeSetupState {
  skills = $state<Array<{ id: string; title: string }>>([]);
  abilityId = $state("");
  sites = $state("");
  rounds = $state(3);
  /** §0C.14 test policy: a dry run stops before the committing step; off, the practice does it for real on these sites (after nothing else). */
  dryRun = $state(true);
  inputs = $state("");
  /** The goal and what success looks like, in the person's words (prefilled from the skill). */
  goal = $state("");
  success = $state("");
  /** What the fields were last prefilled with: a field the person changed is not overwritten. */
  #prefilled = { goal: "", success: "", sites: "" };
  error = $state<string | null>(null);
  busy = $state(false);
  report = $state<PracticeReport | null>(null);
  #deps: LearnDeps;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(deps: LearnDeps) {
    this.#deps = deps;
  }

  async begin(): Promise<void> {
    this.stop();
    this.report = null;
    this.error = null;
    try {
      const { abilities } = await this.#deps.client.abilityAvailability();
      this.skills = abilities.filter((ability) => ability.source === "learned").map((ability) => ({ id: ability.ability_id, title: ability.title }));
      if (this.abilityId === "" && this.skills[0] !== undefined) this.abilityId = this.skills[0].id;
    } catch (error) {
      this.#deps.onFailure(error);
    }
    await this.prefill();
  }

  /** Fills goal, success and sites from the chosen skill, keeping what the person wrote there themselves. */
  async prefill(): Promise<void> {
    const abilityId = this.abilityId;
    if (abilityId === "") return;
    let spec: AbilityRunSpec;
    try {
      spec = await this.#deps.client.runSpec(abilityId);
    } catch (error) {
      // Only a convenience: the fields can be filled by hand.
      this.#deps.onFailure(error);
      return;
    }
    if (abilityId !== this.abilityId) return;
    const next = practicePrefill(spec);
    if (this.goal === this.#prefilled.goal) this.goal = next.goal;
    if (this.success === this.#prefilled.success) this.success = next.success;
    if (this.sites === this.#prefilled.sites) this.sites = next.sites;
    this.#prefilled = next;
  }

  async start(): Promise<void> {
    const sites = this.sites
      .split(/[\s,]+/)
      .map((site) => site.trim())
      .filter((site) => site !== "");
    if (this.abilityId === "" || sites.length === 0) {
      this.error = "Choose a skill and at least one site it may open.";
      return;
    }
    this.busy = true;
    this.error = null;
    try {
      const created = await this.#deps.client.createSession({
        entry_mode: "autonomous_agent_practice",
        target_app_whitelist: sites,
        test_policy: { policy_id: crypto.randomUUID(), mode: this.dryRun ? "dry_run_only" : "live_read_safe_write", allowed_domains: sites, schema_version: 1 },
        practice: {
          practise: { ability_id: this.abilityId },
          ...(this.goal.trim() === "" ? {} : { goal_summary: this.goal.trim().slice(0, 600) }),
          ...(this.success.trim() === "" ? {} : { success_description: this.success.trim().slice(0, 600) }),
          rounds: this.rounds,
          input_sets: parseInputSets(this.inputs),
        },
      });
      // The inputs were handed to the agent for this session only; the form forgets them.
      this.inputs = "";
      this.#poll(created.session.learn_session_id);
    } catch (error) {
      this.error = error instanceof Error ? error.message : "The practice could not start.";
      this.busy = false;
    }
  }

  #poll(sessionId: string): void {
    this.#timer = setTimeout(async () => {
      try {
        this.report = await this.#deps.client.practiceReport(sessionId);
      } catch {
        // Not written yet: the practice is still starting.
      }
      if (this.report === null || this.report.status === "running") this.#poll(sessionId);
      else this.busy = false;
    }, 1000);
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

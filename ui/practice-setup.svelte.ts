import type { PracticeReport } from "../shared/learning/practice";
import type { LearnDeps } from "./learn-deps";

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
  inputs = $state("");
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
  }

  async start(): Promise<void> {
    const sites = this.sites.split(/[\s,]+/).map((site) => site.trim()).filter((site) => site !== "");
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
        test_policy: { policy_id: crypto.randomUUID(), mode: "dry_run_only", allowed_domains: sites, schema_version: 1 },
        practice: { practise: { ability_id: this.abilityId }, rounds: this.rounds, input_sets: parseInputSets(this.inputs) },
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

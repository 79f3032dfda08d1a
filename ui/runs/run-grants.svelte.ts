import type { RunGrant } from "../../shared/execution/run-grants";
import { describeFailure } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";

/** What Skills knows of one ability's standing grants. */
export type GrantsEntry = { status: "loading" } | { status: "ready"; grants: RunGrant[] } | { status: "error"; message: string };

/**
 * Issue #33: the standing grants of each skill Skills lists ("Always allow this step"), read when
 * the skill is shown, and revoked at once with Revoke. An agent without grants (older) shows none.
 */
export class RunGrantsState {
  entries = $state.raw<ReadonlyMap<string, GrantsEntry>>(new Map());
  /** The grant being revoked. */
  revoking = $state<string | null>(null);
  error = $state<string | null>(null);
  readonly #deps: LearnDeps;

  constructor(deps: LearnDeps) {
    this.#deps = deps;
  }

  entry(abilityId: string): GrantsEntry | undefined {
    return this.entries.get(abilityId);
  }

  #set(abilityId: string, entry: GrantsEntry): void {
    this.entries = new Map(this.entries).set(abilityId, entry);
  }

  async load(abilityId: string): Promise<void> {
    if (this.entries.get(abilityId) === undefined) this.#set(abilityId, { status: "loading" });
    try {
      const { grants } = await this.#deps.client.listGrants(abilityId);
      this.#set(abilityId, { status: "ready", grants });
    } catch (error) {
      report(this.#deps, error);
      this.#set(abilityId, { status: "error", message: describeFailure(error) });
    }
  }

  /** Revokes the grant; from this moment no run goes past its step without asking. */
  async revoke(abilityId: string, grantId: string): Promise<void> {
    if (this.revoking !== null) return;
    this.revoking = grantId;
    this.error = null;
    try {
      await this.#deps.client.revokeGrant(abilityId, grantId);
      const entry = this.entries.get(abilityId);
      if (entry?.status === "ready") this.#set(abilityId, { status: "ready", grants: entry.grants.filter((grant) => grant.grant_id !== grantId) });
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
    } finally {
      this.revoking = null;
    }
  }
}

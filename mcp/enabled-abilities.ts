import { AbilityAvailabilityResponseSchema, type AbilityAvailabilityResponse } from "../shared/learning/route-contracts";
import type { AgentClient } from "./agent-client";
import { ElnorMcpError } from "./mcp-errors";

export type ListedAbility = AbilityAvailabilityResponse["abilities"][number];

/**
 * Least privilege (issue #19): what an assistant may see and run through MCP is the abilities this
 * agent installed (learned or imported) that are on, not quarantined and usable now. Skills of the
 * assistant's own folders are its own business, not ours to list or run.
 */
export function isListed(entry: ListedAbility): boolean {
  return (entry.source === "learned" || entry.source === "imported") && entry.enabled && entry.install_lane !== "quarantined" && entry.usable_now;
}

/** The enabled abilities as the agent says now (never a cached answer: a disable counts at once). */
export async function enabledAbilities(agent: AgentClient, signal?: AbortSignal): Promise<ListedAbility[]> {
  const availability = await agent.get("/api/abilities/availability", AbilityAvailabilityResponseSchema, signal);
  return availability.abilities.filter(isListed);
}

/** The enabled ability of that id, or a refusal that does not say whether it exists but is off. */
export async function requireEnabled(agent: AgentClient, abilityId: string, signal?: AbortSignal): Promise<ListedAbility> {
  const entry = (await enabledAbilities(agent, signal)).find((candidate) => candidate.ability_id === abilityId);
  if (entry === undefined) {
    throw new ElnorMcpError(
      "ABILITY_NOT_ENABLED",
      `No enabled ability ${abilityId}: use find_abilities to see the abilities you can use (a disabled or quarantined one is neither listed nor runnable).`,
    );
  }
  return entry;
}

export interface EnabledSetWatch {
  stop(): void;
}

/**
 * Re-reads the enabled set every `pollMs` and calls `onChange` when the set of ids differs from the
 * last one seen (install, disable, quarantine, remove). The first read only sets the baseline. While
 * the agent cannot be reached the last set stands: an unreachable agent is said by each call, not by
 * a list change.
 */
export function watchEnabledSet(agent: AgentClient, pollMs: number, onChange: (abilityIds: string[]) => void): EnabledSetWatch {
  let last: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = async () => {
    try {
      const ids = (await enabledAbilities(agent)).map((entry) => entry.ability_id).sort();
      const key = JSON.stringify(ids);
      if (last !== undefined && key !== last) onChange(ids);
      last = key;
    } catch {
      // Not reachable or not paired right now: nothing is known to have changed.
    }
    if (!stopped) timer = setTimeout(() => void tick(), pollMs);
  };
  void tick();
  return {
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

import type { AbilityLifecycleAction } from "../../shared/abilities/lifecycle-command";
import type { LearningReceiptKind } from "../../shared/learning/sessions/receipts";
import { AppError } from "../errors/app-error";
import type { InstalledAbility } from "./ability-registry";

/**
 * §0C.12 lifecycle commands on an installed ability, as a table of what each changes and which
 * receipt says so; the service writes the result (history, registry, bridge, snapshot).
 */
export function lifecycleChange(
  ability: InstalledAbility,
  action: AbilityLifecycleAction,
  reason?: string,
): { next: InstalledAbility; kind: LearningReceiptKind } {
  switch (action) {
    case "activate":
      return { next: { ...ability, enabled: true }, kind: "ability.activated" };
    case "deactivate":
      return { next: { ...ability, enabled: false }, kind: "ability.deactivated" };
    case "quarantine":
      return { next: { ...ability, quarantined: true, ...(reason === undefined ? {} : { quarantine_reason: reason }) }, kind: "ability.quarantined" };
    case "unquarantine": {
      const { quarantine_reason: _dropped, ...rest } = ability;
      return { next: { ...rest, quarantined: false }, kind: "ability.unquarantined" };
    }
    case "promote_shared":
      if (ability.install_lane !== "approved_workspace" || ability.quarantined) {
        throw new AppError("INSTALL_LANE_DENIED", "Only an approved, healthy ability can be promoted to shared; approve it first.");
      }
      return { next: { ...ability, install_lane: "shared_promoted" }, kind: "ability.promoted_shared" };
    case "demote_private":
    case "archive":
      throw new AppError("REQUEST_INVALID", `The ${action} command is not offered by this agent.`);
    default: {
      const unreachable: never = action;
      throw new AppError("REQUEST_INVALID", `Unknown lifecycle action ${String(unreachable)}.`);
    }
  }
}

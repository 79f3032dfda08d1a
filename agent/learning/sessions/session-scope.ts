import type { LearnSession } from "../../../shared/learning/sessions/learn-session";
import { OBSERVATION_ADAPTER_PHASES, type ObservationAdapterKind } from "../../../shared/learning/observed-actions/observation-adapter";
import { watchesThisComputer } from "../../../shared/learning/observed-actions/desktop-detail";
import { AppError } from "../../errors/app-error";
import { DESKTOP_PHASE_1_KINDS, PHASE_1_ALTERNATIVE, type AdapterRegistry } from "../../observation/adapter-registry";
import type { SessionCore } from "./session-core";
import type { SessionService } from "./session-service";

/** The adapters of the browser extension. */
const BROWSER_KINDS: readonly ObservationAdapterKind[] = ["browser_dom", "browser_snapshot"];

/** App families that mean "a web page in the browser" (the browser extension observes them). */
const WEB_FAMILIES = new Set(["browser", "web", "chrome", "chromium"]);

function isWebTarget(session: LearnSession): boolean {
  if (session.target_app_family !== undefined) return WEB_FAMILIES.has(session.target_app_family.toLowerCase());
  // No family given: an allow-list of sites (host names or origins) means the browser.
  return session.target_app_whitelist.length > 0 && session.target_app_whitelist.every((entry) => /^(https?:\/\/)?[\w.*-]+(:\d+)?\/?$/i.test(entry));
}

/** What a session observes (§0C.22): its scope, the data classes ingest saw, the masking mode. */
export function createScopeOperations(core: SessionCore): Pick<SessionService, "observationScope" | "recordIngest" | "setRedaction"> {
  const { exclusive, find, scopeOf, putScope, writeReceipt, refreshRuntimeViews } = core;
  return {
    async observationScope(sessionId) {
      find(sessionId);
      const scope = await scopeOf(sessionId);
      if (scope === undefined) throw new AppError("LEARN_SESSION_NOT_FOUND", `No observation scope for session ${sessionId}.`);
      return scope;
    },

    recordIngest: (sessionId, update) =>
      exclusive(async () => {
        const scope = await scopeOf(sessionId);
        if (scope === undefined) return;
        const dataClasses = [...new Set([...scope.data_classes_observed, ...update.dataClasses])].sort();
        if (update.offTargetDropped === 0 && dataClasses.length === scope.data_classes_observed.length) return;
        await putScope({
          ...scope,
          data_classes_observed: dataClasses,
          off_target_events_dropped: scope.off_target_events_dropped + update.offTargetDropped,
        });
        await refreshRuntimeViews();
      }),

    setRedaction: (sessionId, textEntry) =>
      exclusive(async () => {
        const session = find(sessionId);
        if (!["idle", "armed", "capturing", "paused"].includes(session.state)) {
          throw new AppError("INVALID_LEARN_STATE_TRANSITION", `Masking is chosen before capture ends, not when ${session.state}.`);
        }
        const scope = await scopeOf(sessionId);
        if (scope === undefined) throw new AppError("LEARN_SESSION_NOT_FOUND", `No observation scope for session ${sessionId}.`);
        const next = { ...scope, redaction_modes: { ...scope.redaction_modes, text_entry: textEntry } };
        await putScope(next);
        await writeReceipt(session, "learn.capture.redaction_set", {
          details: { text_entry: textEntry, ...(textEntry === "none" ? { consent: "user consented to record typed text for this session" } : {}) },
        });
        await refreshRuntimeViews();
        return next;
      }),
  };
}

/** The adapters a start arms for this session, or a coded error saying which one to start (§0C.22). */
export function checkAdapters(adapters: AdapterRegistry, session: LearnSession, requested: readonly ObservationAdapterKind[]): ObservationAdapterKind[] {
  for (const kind of requested) {
    const phase = OBSERVATION_ADAPTER_PHASES[kind];
    if (phase !== "phase_1") {
      throw new AppError(
        "ADAPTER_UNAVAILABLE",
        `The ${kind} adapter (${phase.replace("_", " ")}) is not available yet; capture with ${PHASE_1_ALTERNATIVE[kind]} instead.`,
      );
    }
  }
  if (session.observation_mode !== "outside_agent" && session.observation_mode !== "mixed") return [];
  const needed: readonly ObservationAdapterKind[] = isWebTarget(session) ? BROWSER_KINDS : DESKTOP_PHASE_1_KINDS;
  const healthy = adapters.healthyOf(needed);
  for (const kind of requested) {
    if (!healthy.some((status) => status.kind === kind)) {
      throw new AppError("ADAPTER_UNAVAILABLE", `The ${kind} adapter is not connected; start it, then press Start again.`);
    }
  }
  if (healthy.length === 0) {
    throw new AppError(
      "ADAPTER_UNAVAILABLE",
      isWebTarget(session)
        ? "No browser extension is connected to observe these sites; open the extension and pair it, then press Start again."
        : "No desktop observation adapter is connected for this app; start one, then press Start again.",
    );
  }
  // "This computer" and sites together: the sites need the extension as well.
  const alongside = watchesThisComputer(session) && session.target_app_whitelist.length > 0 ? adapters.healthyOf(BROWSER_KINDS) : [];
  if (watchesThisComputer(session) && session.target_app_whitelist.length > 0 && alongside.length === 0) {
    throw new AppError(
      "ADAPTER_UNAVAILABLE",
      "No browser extension is connected to observe the sites; open the extension and pair it, then press Start again.",
    );
  }
  return [...new Set([...healthy, ...alongside].map((status) => status.kind))].sort();
}

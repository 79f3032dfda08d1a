import {
  OBSERVATION_ADAPTER_PHASES,
  type ObservationAdapterKind,
  type ObservationAdapterStatus,
} from "../../shared/learning/observed-actions/observation-adapter";
import type { Clock } from "../common/clock";

/** An adapter that has not been heard from for this long is no longer healthy. */
export const ADAPTER_HEARTBEAT_TTL_MS = 90_000;

/**
 * How many adapters the registry remembers at once. Any paired client may report in under a new
 * `adapter_id` (every extension reload, every reconnect of a desktop adapter, `id:kind` per socket),
 * so the list is bounded: past the cap, adapters that are gone (disconnected or silent past the
 * TTL) are forgotten first, then the one heard from longest ago.
 */
export const MAX_TRACKED_ADAPTERS = 256;

/** Phase 1 adapters that observe desktop programs rather than web pages (§0C.22). */
export const DESKTOP_PHASE_1_KINDS: readonly ObservationAdapterKind[] = ["terminal_command", "process_launch", "wrapper_receipt", "mcp_receipt"];

/** What to offer instead of an adapter that is not available yet (§0C.22: "suggest alternative capture methods"). */
export const PHASE_1_ALTERNATIVE: Record<ObservationAdapterKind, ObservationAdapterKind> = {
  browser_dom: "browser_dom",
  browser_snapshot: "browser_snapshot",
  mcp_receipt: "mcp_receipt",
  wrapper_receipt: "wrapper_receipt",
  terminal_command: "terminal_command",
  process_launch: "process_launch",
  keyboard_shortcut: "browser_dom",
  file_dialog: "process_launch",
  midi: "wrapper_receipt",
  accessibility_ui: "browser_snapshot",
  mouse_click: "browser_dom",
  clipboard: "browser_dom",
  text_entry: "browser_dom",
};

export interface AdapterRegistry {
  heartbeat(input: { adapter_id: string; kind: ObservationAdapterKind; enabled: boolean; last_error_code?: string | undefined }): ObservationAdapterStatus;
  list(): ObservationAdapterStatus[];
  /** Healthy adapters of the given kinds: enabled, Phase 1, heard from within the TTL, no error. */
  healthyOf(kinds: readonly ObservationAdapterKind[]): ObservationAdapterStatus[];
  disconnect(adapterId: string): void;
}

/**
 * Which observation adapters are alive right now. Live connection state, so it is held in memory
 * and rebuilt by heartbeats after a restart rather than read back from disk.
 */
export function createAdapterRegistry(deps: { clock: Clock; maxAdapters?: number }): AdapterRegistry {
  const maxAdapters = Math.max(1, deps.maxAdapters ?? MAX_TRACKED_ADAPTERS);
  // Insertion order is "least recently heard from first": a heartbeat moves its adapter to the end.
  const adapters = new Map<string, { kind: ObservationAdapterKind; enabled: boolean; lastSeen: number; lastError?: string | undefined; connected: boolean }>();

  /** Makes room for one more adapter: the gone ones first, then the longest silent. */
  const makeRoom = () => {
    if (adapters.size < maxAdapters) return;
    const now = deps.clock.now().getTime();
    for (const [id, entry] of adapters) {
      if (adapters.size < maxAdapters) return;
      if (!entry.connected || now - entry.lastSeen > ADAPTER_HEARTBEAT_TTL_MS) adapters.delete(id);
    }
    for (const id of adapters.keys()) {
      if (adapters.size < maxAdapters) return;
      adapters.delete(id);
    }
  };

  const statusOf = (adapterId: string): ObservationAdapterStatus | undefined => {
    const entry = adapters.get(adapterId);
    if (entry === undefined) return undefined;
    const phase = OBSERVATION_ADAPTER_PHASES[entry.kind];
    const fresh = deps.clock.now().getTime() - entry.lastSeen <= ADAPTER_HEARTBEAT_TTL_MS;
    return {
      adapter_id: adapterId,
      kind: entry.kind,
      enabled: entry.enabled,
      // Phase 2/3 adapters are never healthy on day 1 (§0C.22), whatever they report.
      healthy: phase === "phase_1" && entry.enabled && entry.connected && fresh && entry.lastError === undefined,
      phase,
      last_seen_at: new Date(entry.lastSeen).toISOString(),
      ...(entry.lastError === undefined ? {} : { last_error_code: entry.lastError }),
      schema_version: 1,
    };
  };

  return {
    heartbeat(input) {
      if (!adapters.delete(input.adapter_id)) makeRoom();
      adapters.set(input.adapter_id, {
        kind: input.kind,
        enabled: input.enabled,
        lastSeen: deps.clock.now().getTime(),
        lastError: input.last_error_code,
        connected: true,
      });
      return statusOf(input.adapter_id) as ObservationAdapterStatus;
    },
    list: () => [...adapters.keys()].sort().map((id) => statusOf(id) as ObservationAdapterStatus),
    healthyOf: (kinds) =>
      [...adapters.keys()].map((id) => statusOf(id) as ObservationAdapterStatus).filter((status) => status.healthy && kinds.includes(status.kind)),
    disconnect(adapterId) {
      const entry = adapters.get(adapterId);
      if (entry !== undefined) entry.connected = false;
    },
  };
}

import { z } from "zod";
import { RunGrantLogEntrySchema, StoredRunGrantSchema, type RunGrantLogEntry, type StoredRunGrant } from "../../../shared/execution/run-grants";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";

/**
 * Where standing grants are kept (issue #33): every creation, use and revocation is appended to
 * `system/execution/grants/grants.jsonl` (fsynced before it counts), then the current view
 * `grants_current.json` is replaced atomically. The log is the record: on start the view is folded
 * again from it, so a stop between the two writes loses nothing. Writes are made one at a time.
 */

/** The current view's shape (what `grants_current.json` holds). */
export const GrantsViewSchema = z.object({ grants: z.array(StoredRunGrantSchema), schema_version: z.literal(1) });

export interface GrantStore {
  all(): StoredRunGrant[];
  get(grantId: string): StoredRunGrant | undefined;
  /** Appends the entry, applies it and writes the view; resolves once both are on disk. */
  record(entry: RunGrantLogEntry): Promise<void>;
}

function apply(grants: Map<string, StoredRunGrant>, entry: RunGrantLogEntry): void {
  switch (entry.event) {
    case "grant.created":
      grants.set(entry.grant.grant_id, entry.grant);
      return;
    case "grant.used": {
      const grant = grants.get(entry.grant_id);
      if (grant !== undefined) grants.set(grant.grant_id, { ...grant, last_used_at: entry.at, use_count: grant.use_count + 1 });
      return;
    }
    case "grant.revoked": {
      const grant = grants.get(entry.grant_id);
      if (grant !== undefined && grant.revoked_at === undefined) grants.set(grant.grant_id, { ...grant, revoked_at: entry.at });
      return;
    }
    default: {
      const unknown: never = entry;
      throw new Error(`unknown grant event ${JSON.stringify(unknown)}`);
    }
  }
}

export async function openGrantStore(memory: MemoryStore): Promise<GrantStore> {
  const grants = new Map<string, StoredRunGrant>();
  await memory.forEachJsonl(MemoryPaths.grantsLog, RunGrantLogEntrySchema, (entry) => apply(grants, entry));
  const writeView = () => memory.writeJson(MemoryPaths.grantsCurrent, { grants: [...grants.values()], schema_version: 1 });
  // The view follows the log: whatever a stop between the two writes left behind is put right.
  if (grants.size > 0) await writeView();
  let queue: Promise<void> = Promise.resolve();
  return {
    all: () => [...grants.values()],
    get: (grantId) => grants.get(grantId),
    record(entry) {
      const next = queue.then(async () => {
        await memory.append(MemoryPaths.grantsLog, entry);
        apply(grants, entry);
        await writeView();
      });
      queue = next.catch(() => undefined);
      return next;
    },
  };
}

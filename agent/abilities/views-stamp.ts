import { createHash } from "node:crypto";
import { z } from "zod";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import { anchorOf } from "../memory/log-view";
import { CategoryPaths } from "../categories/category-service";
import type { SkillFolderSource } from "./skill-folders";
import { MEMORY_READER_NAMES } from "../memory/memory-readers";

/** The views derived from the registry (§0C.11A–B) that start-up rewrote every time before issue 32. */
const VIEWS = new Set<string>([MemoryPaths.bridgeEntriesCurrent, MemoryPaths.availabilityCurrent, MemoryPaths.catalogCurrent]);

/**
 * Issue 32: what the derived views were last written from at start-up (no spec name). Present only
 * while nothing has written a view since: the first write of a view removes it (`guardViews`).
 * Two parts, so that start-up does not grow with the abilities:
 * - `committed`: what only this agent writes (the registry, the checkpoint receipts, the categories),
 *   each log named by its length and its last bytes (they are only ever appended to): compared at
 *   start-up, before the agent listens, in a few reads whatever the number of abilities;
 * - `folders`: the skill folders' fingerprint (a person or another tool may change them while the
 *   agent is stopped): compared by the folder check the agent runs once it is ready, as it does every
 *   30 s after; the first read of the snapshot waits for that first check.
 */
const VIEWS_STAMP = "system/abilities/views_stamp.json";
const ViewsStampSchema = z.object({ committed: z.string(), folders: z.string(), schema_version: z.literal(1) });
export type ViewsStamp = z.infer<typeof ViewsStampSchema>;

/** Bumped when what the views hold for the same inputs changes, or the stamp's make-up (an agent upgrade then rewrites them once). */
const VIEWS_FORMAT = 2;

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/**
 * The memory store as the ability service writes through it: the first write (or removal) of a
 * derived view removes the stamp before it, so a stop half-way through a lifecycle change or an
 * install never leaves a stamp saying the views match what they were written from.
 */
export function guardViews(memory: MemoryStore): { memory: MemoryStore; stamped: () => void } {
  let stampMayExist = true;
  const guarded = new Proxy(memory, {
    get(target, member, receiver) {
      const value = Reflect.get(target, member, receiver) as unknown;
      if (typeof member !== "string" || MEMORY_READER_NAMES.has(member) || typeof value !== "function") return value;
      return async (relative: unknown, ...rest: unknown[]) => {
        if (stampMayExist && typeof relative === "string" && VIEWS.has(relative)) {
          await target.remove(VIEWS_STAMP).catch(() => undefined);
          stampMayExist = false;
        }
        return (value as (...args: unknown[]) => unknown).call(target, relative, ...rest);
      };
    },
  });
  return { memory: guarded, stamped: () => (stampMayExist = true) };
}

/** A log as it stands: its length and a digest of its last bytes. */
async function logMark(memory: MemoryStore, log: string): Promise<string> {
  const size = await memory.sizeOf(log);
  if (size === undefined) return "absent";
  return `${size}:${await anchorOf(memory, log, size)}`;
}

/**
 * What the bridge, the availability snapshot and the catalog are a function of, among what only
 * this agent writes, digested: the registry (the abilities), the checkpoint receipts (their health)
 * and the categories they are filed in.
 */
export async function committedInputs(memory: MemoryStore): Promise<string> {
  const logs = await Promise.all([MemoryPaths.abilityRegistry, MemoryPaths.checkpointReceipts, CategoryPaths.assignments].map((log) => logMark(memory, log)));
  const categories = await memory.readBytes(CategoryPaths.current);
  return sha256(JSON.stringify({ format: VIEWS_FORMAT, logs, categories: categories === undefined ? "absent" : sha256(categories) }));
}

/** Which skills' files are present in the skill folders (the projected folders are the native skill folder, beside the assistant's own), digested. */
export async function foldersInput(folders: SkillFolderSource | undefined): Promise<string> {
  return sha256(folders === undefined ? "" : await folders.fingerprint());
}

/** The stamp, when there is one and each view it speaks for is there. */
export async function readViewsStamp(memory: MemoryStore): Promise<ViewsStamp | undefined> {
  const stamp = await memory.readJson(VIEWS_STAMP, ViewsStampSchema).catch(() => undefined);
  if (stamp === undefined) return undefined;
  for (const view of VIEWS) if (!(await memory.exists(view))) return undefined;
  return stamp;
}

export async function writeViewsStamp(memory: MemoryStore, stamp: Omit<ViewsStamp, "schema_version">): Promise<void> {
  await memory.writeJson(VIEWS_STAMP, { ...stamp, schema_version: 1 });
}

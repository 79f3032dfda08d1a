import { mkdir, rm, unlink } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors/app-error";
import { createAppendLogs } from "./append-logs";
import { toWriteError, writeFileAtomic } from "./memory-fs";
import { acquireLock } from "./memory-lock";
import { resolveMemoryPath } from "./memory-paths";
import { createMemoryReaders, type MemoryReaders } from "./memory-readers";

/**
 * The ELNOR_MEMORY store (DESIGN §5). Every file the agent writes goes through one of these
 * handles: current views are replaced atomically (temp file, fsync, rename, fsync of the folder),
 * logs are append-only JSONL whose writes are grouped and fsynced before any caller is told they
 * are durable, and a line torn by a crash is cut off before the next append.
 */
export interface MemoryStore extends MemoryReaders {
  readonly root: string;
  writeJson(relative: string, value: unknown): Promise<void>;
  writeText(relative: string, text: string, options?: { mode?: number }): Promise<void>;
  /** Bytes kept exactly (an imported bundle's archive), replaced atomically like a view. */
  writeBytes(relative: string, bytes: Uint8Array): Promise<void>;
  /** Resolves once the record is on disk (fsync). Records appended together share one fsync. */
  append(relative: string, record: unknown): Promise<void>;
  appendMany(relative: string, records: readonly unknown[]): Promise<void>;
  /** Removes a file or a folder tree; absent is fine. */
  remove(relative: string): Promise<void>;
  close(): Promise<void>;
}

export interface OpenMemoryStoreOptions {
  root: string;
}

/** Opens ELNOR_MEMORY for this agent alone (its lock held until `close`). */
export async function openMemoryStore(options: OpenMemoryStoreOptions): Promise<MemoryStore> {
  const root = path.resolve(options.root);
  await mkdir(root, { recursive: true });
  const lockPath = await acquireLock(root);
  const logs = createAppendLogs();
  let closed = false;

  const at = (relative: string) => resolveMemoryPath(root, relative);
  const assertOpen = () => {
    if (closed) throw new AppError("INTERNAL_ERROR", "The memory store is closed.");
  };
  const writeAtomic = async (relative: string, data: string | Uint8Array, mode = 0o600) => {
    assertOpen();
    await writeFileAtomic(at(relative), data, mode);
  };
  const enqueue = async (relative: string, records: readonly unknown[]): Promise<void> => {
    assertOpen();
    if (records.length === 0) return;
    const absolute = at(relative);
    return logs.append(absolute, records.map((record) => `${JSON.stringify(record)}\n`).join(""));
  };

  return {
    root,
    ...createMemoryReaders(root),
    writeJson: (relative, value) => writeAtomic(relative, `${JSON.stringify(value, null, 2)}\n`),
    writeText: (relative, text, options) => writeAtomic(relative, text, options?.mode),
    writeBytes: (relative, bytes) => writeAtomic(relative, bytes),
    append: (relative, record) => enqueue(relative, [record]),
    appendMany: (relative, records) => enqueue(relative, records),
    async remove(relative) {
      assertOpen();
      const absolute = at(relative);
      await logs.closeUnder(absolute);
      await rm(absolute, { recursive: true, force: true }).catch((error: unknown) => Promise.reject(toWriteError(error)));
    },
    async close() {
      if (closed) return;
      closed = true;
      await logs.closeAll();
      await unlink(lockPath).catch(() => undefined);
    },
  };
}

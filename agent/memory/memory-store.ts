import { randomBytes } from "node:crypto";
import { constants as fsConstants } from "node:fs";
import { open, mkdir, readFile, rename, rm, readdir, stat, unlink, type FileHandle } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import type { z } from "zod";
import { AppError, isAppError } from "../errors/app-error";
import { MemoryPaths, resolveMemoryPath } from "./memory-paths";

/**
 * The ELNOR_MEMORY store (DESIGN §5). Every file the agent writes goes through one of these
 * handles: current views are replaced atomically (temp file, fsync, rename, fsync of the folder),
 * logs are append-only JSONL whose writes are grouped and fsynced before any caller is told they
 * are durable, and a line torn by a crash is cut off before the next append.
 */
export interface MemoryStore {
  readonly root: string;
  readJson<S extends z.ZodType>(relative: string, schema: S): Promise<z.infer<S> | undefined>;
  writeJson(relative: string, value: unknown): Promise<void>;
  readText(relative: string): Promise<string | undefined>;
  writeText(relative: string, text: string, options?: { mode?: number }): Promise<void>;
  /** Bytes kept exactly (an imported bundle's archive), replaced atomically like a view. */
  writeBytes(relative: string, bytes: Uint8Array): Promise<void>;
  readBytes(relative: string): Promise<Buffer | undefined>;
  /** Resolves once the record is on disk (fsync). Records appended together share one fsync. */
  append(relative: string, record: unknown): Promise<void>;
  appendMany(relative: string, records: readonly unknown[]): Promise<void>;
  readJsonl<S extends z.ZodType>(relative: string, schema: S): Promise<Array<z.infer<S>>>;
  /**
   * Each record of a JSONL log in order, checked against the schema, handed to `visit` as it is
   * read (1 MB at a time) instead of collected: a fold over a long log keeps only what it folds to,
   * and the versions it drops die young (issue 17: start-up's peak heap, and so its RSS).
   */
  forEachJsonl<S extends z.ZodType>(relative: string, schema: S, visit: (record: z.infer<S>, line: number) => void): Promise<void>;
  /**
   * The records of a JSONL log whose line contains `containing` (a plain substring test before any
   * parsing), read in chunks so a large log is never held whole; only the kept lines are parsed
   * and checked against the schema.
   */
  readJsonlContaining<S extends z.ZodType>(relative: string, schema: S, containing: string): Promise<Array<z.infer<S>>>;
  /**
   * The last `count` records of a JSONL log whose line contains `containing` (a plain substring test
   * before any parsing) and that `keep` accepts, oldest first. Read from the end of the log, 1 MB
   * at a time, and no further back than it takes to find them (issue 17: the receipts log holds
   * every receipt ever written, and start-up wants a session's last ten).
   */
  readJsonlLast<S extends z.ZodType>(relative: string, schema: S, containing: string, count: number, keep?: (record: z.infer<S>) => boolean): Promise<Array<z.infer<S>>>;
  exists(relative: string): Promise<boolean>;
  list(relative: string): Promise<string[]>;
  /** Removes a file or a folder tree; absent is fine. */
  remove(relative: string): Promise<void>;
  close(): Promise<void>;
}

export interface OpenMemoryStoreOptions {
  root: string;
}

interface PendingAppend {
  text: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface AppendLog {
  handle: FileHandle;
  size: number;
  pending: PendingAppend[];
  flushing: Promise<void> | undefined;
}

const WRITE_FAILURE_CODES = new Set(["ENOSPC", "EDQUOT", "EIO", "EROFS", "EFBIG", "EACCES", "EPERM"]);

function toWriteError(error: unknown): unknown {
  if (isAppError(error)) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && WRITE_FAILURE_CODES.has(code)) {
    // Not "nothing was changed": this one write left nothing behind, but a request that had already
    // written other files before it (a session change and its receipt) may have changed those.
    return new AppError("MEMORY_WRITE_FAILED", `ELNOR_MEMORY could not be written (${code}); free some space or fix its permissions, then try again.`, {
      cause: error,
    });
  }
  return error;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}

async function fsyncFolder(folder: string): Promise<void> {
  const handle = await open(folder, fsConstants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function acquireLock(root: string): Promise<string> {
  const lockPath = resolveMemoryPath(root, MemoryPaths.agentLock);
  await mkdir(path.dirname(lockPath), { recursive: true });
  const body = JSON.stringify({ pid: process.pid, host: hostname(), started_at: new Date().toISOString() });
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(lockPath, "wx", 0o600);
      await handle.writeFile(body);
      await handle.sync();
      await handle.close();
      return lockPath;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw toWriteError(error);
    }
    const holder = await readLockHolder(lockPath);
    if (holder !== undefined && isProcessAlive(holder)) {
      throw new AppError(
        "MEMORY_LOCKED",
        `Another elnor-learn agent (pid ${holder}) is using ELNOR_MEMORY at ${root}. Stop it, or point ELNOR_MEMORY at another folder.`,
      );
    }
    // The holder is gone (crash, SIGKILL): its lock is stale and safe to take over once.
    await unlink(lockPath).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
    });
  }
  throw new AppError("MEMORY_LOCKED", `ELNOR_MEMORY at ${root} is being locked by another agent right now.`);
}

async function readLockHolder(lockPath: string): Promise<number | undefined> {
  try {
    const parsed: unknown = JSON.parse(await readFile(lockPath, "utf8"));
    const pid = (parsed as { pid?: unknown } | null)?.pid;
    return typeof pid === "number" && Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    // An unreadable or half-written lock file names no live holder.
    return undefined;
  }
}

/** Cuts a trailing partial line (a write torn by a crash) so the next append starts clean. */
async function repairTornTail(handle: FileHandle): Promise<number> {
  const { size } = await handle.stat();
  if (size === 0) return 0;
  const probe = Buffer.alloc(1);
  await handle.read(probe, 0, 1, size - 1);
  if (probe[0] === 0x0a) return size;
  const chunk = 64 * 1024;
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunk);
    const buffer = Buffer.alloc(end - start);
    await handle.read(buffer, 0, buffer.length, start);
    const newline = buffer.lastIndexOf(0x0a);
    if (newline >= 0) {
      const keep = start + newline + 1;
      await handle.truncate(keep);
      await handle.sync();
      return keep;
    }
    end = start;
  }
  await handle.truncate(0);
  await handle.sync();
  return 0;
}

export async function openMemoryStore(options: OpenMemoryStoreOptions): Promise<MemoryStore> {
  const root = path.resolve(options.root);
  await mkdir(root, { recursive: true });
  const lockPath = await acquireLock(root);
  const logs = new Map<string, Promise<AppendLog>>();
  let closed = false;

  const assertOpen = () => {
    if (closed) throw new AppError("INTERNAL_ERROR", "The memory store is closed.");
  };

  const openLog = (absolute: string): Promise<AppendLog> => {
    let log = logs.get(absolute);
    if (log === undefined) {
      log = (async () => {
        await mkdir(path.dirname(absolute), { recursive: true });
        const handle = await open(absolute, "a+", 0o600);
        const size = await repairTornTail(handle);
        return { handle, size, pending: [], flushing: undefined };
      })();
      logs.set(absolute, log);
      log.catch(() => logs.delete(absolute));
    }
    return log;
  };

  const flush = async (log: AppendLog): Promise<void> => {
    while (log.pending.length > 0) {
      const batch = log.pending.splice(0, log.pending.length);
      const bytes = Buffer.from(batch.map((entry) => entry.text).join(""), "utf8");
      try {
        // One write may take only part of the bytes (a nearly full disk gives a short write, not an
        // error): keep writing the rest, so a full disk ends in ENOSPC and the truncate below.
        for (let offset = 0; offset < bytes.length; ) {
          const { bytesWritten } = await log.handle.write(bytes, offset, bytes.length - offset, null);
          if (bytesWritten === 0) throw Object.assign(new Error("The file system accepted no bytes."), { code: "EIO" });
          offset += bytesWritten;
        }
        await log.handle.datasync();
        log.size += bytes.length;
        for (const entry of batch) entry.resolve();
      } catch (error) {
        // Nothing of a failed batch may stay behind: cut the file back to its last durable size.
        await log.handle.truncate(log.size).catch(() => undefined);
        const failure = toWriteError(error);
        for (const entry of batch) entry.reject(failure);
      }
    }
  };

  const enqueue = async (relative: string, records: readonly unknown[]): Promise<void> => {
    assertOpen();
    if (records.length === 0) return;
    const absolute = resolveMemoryPath(root, relative);
    const text = records.map((record) => `${JSON.stringify(record)}\n`).join("");
    const log = await openLog(absolute).catch((error: unknown) => Promise.reject(toWriteError(error)));
    const done = new Promise<void>((resolve, reject) => {
      log.pending.push({ text, resolve, reject });
    });
    if (log.flushing === undefined) {
      log.flushing = flush(log).finally(() => {
        log.flushing = undefined;
      });
    }
    return done;
  };

  const closeLogsUnder = async (absolute: string) => {
    for (const [file, logPromise] of logs) {
      if (file === absolute || file.startsWith(absolute + path.sep)) {
        logs.delete(file);
        const log = await logPromise.catch(() => undefined);
        if (log === undefined) continue;
        await log.flushing;
        await log.handle.close();
      }
    }
  };

  const writeAtomic = async (relative: string, data: string | Uint8Array, mode = 0o600) => {
    assertOpen();
    const absolute = resolveMemoryPath(root, relative);
    const folder = path.dirname(absolute);
    const temp = `${absolute}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`;
    try {
      await mkdir(folder, { recursive: true });
      const handle = await open(temp, "wx", mode);
      try {
        await handle.writeFile(data, typeof data === "string" ? "utf8" : undefined);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, absolute);
      await fsyncFolder(folder);
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw toWriteError(error);
    }
  };

  const readText = async (relative: string): Promise<string | undefined> => {
    const absolute = resolveMemoryPath(root, relative);
    try {
      return await readFile(absolute, "utf8");
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  };

  const corrupt = (relative: string, detail: string) =>
    new AppError("MEMORY_RECORD_CORRUPT", `A record in ${relative} is not valid (${detail}).`);

  /** A log opened for reading, or `undefined` when it does not exist (an absent log has no lines). */
  const openIfPresent = async (relative: string): Promise<FileHandle | undefined> => {
    try {
      return await open(resolveMemoryPath(root, relative), "r");
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  };

  /**
   * Calls `visit` with each complete line of a log, in order, reading it in 1 MB chunks so a large
   * log is never held whole. What follows the last newline is a line torn by a crash that was
   * never acknowledged: it is not visited. An absent log has no lines.
   */
  const forEachLine = async (relative: string, visit: (line: string, number: number) => void): Promise<void> => {
    const handle = await openIfPresent(relative);
    if (handle === undefined) return;
    try {
      const chunk = Buffer.allocUnsafe(1024 * 1024);
      let carry = Buffer.alloc(0);
      let number = 0;
      for (;;) {
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
        if (bytesRead === 0) break;
        const data = carry.length === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
        // Decode whole lines only, so a character split between two reads is never cut.
        const last = data.lastIndexOf(0x0a);
        carry = Buffer.from(data.subarray(last + 1));
        if (last < 0) continue;
        for (const line of data.toString("utf8", 0, last).split("\n")) visit(line, (number += 1));
      }
    } finally {
      await handle.close();
    }
  };

  /**
   * Calls `visit` with each complete line of a log from the last to the first, reading it backwards
   * in 1 MB chunks, until `visit` answers true. Lines are the ones `forEachLine` visits: what follows
   * the last newline (a torn line) is not one.
   */
  const forEachLineFromEnd = async (relative: string, visit: (line: string) => boolean): Promise<void> => {
    const handle = await openIfPresent(relative);
    if (handle === undefined) return;
    try {
      const chunk = Buffer.allocUnsafe(1024 * 1024);
      let end = (await handle.stat()).size;
      // The start of a line whose end was read already (bytes before its newline), and whether the
      // log's last newline was found (bytes after it are a torn line, never visited).
      let carry = Buffer.alloc(0);
      let lastNewlineFound = false;
      while (end > 0) {
        const start = Math.max(0, end - chunk.length);
        const { bytesRead } = await handle.read(chunk, 0, end - start, start);
        end = start;
        let data = carry.length === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([chunk.subarray(0, bytesRead), carry]);
        carry = Buffer.alloc(0);
        if (!lastNewlineFound) {
          const last = data.lastIndexOf(0x0a);
          if (last < 0) continue;
          lastNewlineFound = true;
          data = data.subarray(0, last);
        }
        // Decode whole lines only: the first line of a chunk may start in the one before it.
        let whole = data;
        if (start > 0) {
          const first = data.indexOf(0x0a);
          carry = Buffer.from(first < 0 ? data : data.subarray(0, first));
          if (first < 0) continue;
          whole = data.subarray(first + 1);
        }
        const lines = whole.toString("utf8").split("\n");
        for (let index = lines.length - 1; index >= 0; index -= 1) if (visit(lines[index] as string)) return;
      }
    } finally {
      await handle.close();
    }
  };

  const parseLine = <S extends z.ZodType>(relative: string, schema: S, line: string, where: number | string): z.infer<S> => {
    const which = typeof where === "number" ? `line ${where}` : where;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw corrupt(relative, `${which} is not JSON`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw corrupt(relative, `${which} does not match its schema`);
    return parsed.data;
  };

  return {
    root,
    async readJson(relative, schema) {
      const text = await readText(relative);
      if (text === undefined) return undefined;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw corrupt(relative, "not JSON");
      }
      const parsed = schema.safeParse(value);
      if (!parsed.success) throw corrupt(relative, "does not match its schema");
      return parsed.data;
    },
    writeJson: (relative, value) => writeAtomic(relative, `${JSON.stringify(value, null, 2)}\n`),
    readText,
    writeText: (relative, text, options) => writeAtomic(relative, text, options?.mode),
    writeBytes: (relative, bytes) => writeAtomic(relative, bytes),
    async readBytes(relative) {
      try {
        return await readFile(resolveMemoryPath(root, relative));
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    append: (relative, record) => enqueue(relative, [record]),
    appendMany: (relative, records) => enqueue(relative, records),
    async readJsonl(relative, schema) {
      const records: Array<z.infer<typeof schema>> = [];
      await forEachLine(relative, (line, number) => void records.push(parseLine(relative, schema, line, number)));
      return records;
    },
    forEachJsonl: (relative, schema, visit) => forEachLine(relative, (line, number) => visit(parseLine(relative, schema, line, number), number)),
    async readJsonlContaining(relative, schema, containing) {
      const kept: Array<{ line: string; number: number }> = [];
      await forEachLine(relative, (line, number) => {
        if (line.includes(containing)) kept.push({ line, number });
      });
      return kept.map(({ line, number }) => parseLine(relative, schema, line, number));
    },
    async readJsonlLast(relative, schema, containing, count, keep = () => true) {
      const found: Array<z.infer<typeof schema>> = [];
      if (count <= 0) return found;
      let fromEnd = 0;
      await forEachLineFromEnd(relative, (line) => {
        fromEnd += 1;
        if (!line.includes(containing)) return false;
        const record = parseLine(relative, schema, line, `line ${fromEnd} from the end`);
        if (keep(record)) found.push(record);
        return found.length >= count;
      });
      return found.reverse();
    },
    async exists(relative) {
      try {
        await stat(resolveMemoryPath(root, relative));
        return true;
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },
    async list(relative) {
      try {
        return (await readdir(resolveMemoryPath(root, relative))).sort();
      } catch (error) {
        if (isMissing(error)) return [];
        throw error;
      }
    },
    async remove(relative) {
      assertOpen();
      const absolute = resolveMemoryPath(root, relative);
      await closeLogsUnder(absolute);
      await rm(absolute, { recursive: true, force: true }).catch((error: unknown) => Promise.reject(toWriteError(error)));
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const logPromise of logs.values()) {
        const log = await logPromise.catch(() => undefined);
        if (log === undefined) continue;
        await log.flushing;
        await log.handle.close();
      }
      logs.clear();
      await unlink(lockPath).catch(() => undefined);
    },
  };
}

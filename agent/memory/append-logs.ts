import { mkdir, open, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { toWriteError } from "./memory-fs";

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

/**
 * The JSONL logs a store has open for appending: appends that arrive together are written and
 * fsynced as one group before any of them is acknowledged.
 */
export interface AppendLogs {
  /** Resolves once `text` (whole lines) is on disk. */
  append(absolute: string, text: string): Promise<void>;
  /** Closes the logs at or under a path, after their pending writes (before it is removed). */
  closeUnder(absolute: string): Promise<void>;
  closeAll(): Promise<void>;
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

/** Writes every pending batch of a log, one write and one fsync per batch; a failed batch leaves nothing behind. */
async function flush(log: AppendLog): Promise<void> {
  while (log.pending.length > 0) {
    const batch = log.pending.splice(0, log.pending.length);
    const bytes = Buffer.from(batch.map((entry) => entry.text).join(""), "utf8");
    try {
      // One write may take only part of the bytes (a nearly full disk gives a short write, not an
      // error): keep writing the rest, so a full disk ends in ENOSPC and the truncate below.
      for (let offset = 0; offset < bytes.length;) {
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
}

async function closeLog(logPromise: Promise<AppendLog>): Promise<void> {
  const log = await logPromise.catch(() => undefined);
  if (log === undefined) return;
  await log.flushing;
  await log.handle.close();
}

export function createAppendLogs(): AppendLogs {
  const logs = new Map<string, Promise<AppendLog>>();

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

  return {
    async append(absolute, text) {
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
    },
    async closeUnder(absolute) {
      for (const [file, logPromise] of logs) {
        if (file === absolute || file.startsWith(absolute + path.sep)) {
          logs.delete(file);
          await closeLog(logPromise);
        }
      }
    },
    async closeAll() {
      for (const logPromise of logs.values()) await closeLog(logPromise);
      logs.clear();
    },
  };
}

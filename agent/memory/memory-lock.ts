import { mkdir, open, readFile, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { AppError } from "../errors/app-error";
import { isMissing, toWriteError } from "./memory-fs";
import { MemoryPaths, resolveMemoryPath } from "./memory-paths";

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
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

/** One agent owns ELNOR_MEMORY at a time: takes its lock file, or refuses (MEMORY_LOCKED). Returns the lock's path. */
export async function acquireLock(root: string): Promise<string> {
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

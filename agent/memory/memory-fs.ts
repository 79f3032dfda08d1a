import { randomBytes } from "node:crypto";
import { constants as fsConstants } from "node:fs";
import { mkdir, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { AppError, isAppError } from "../errors/app-error";

const WRITE_FAILURE_CODES = new Set(["ENOSPC", "EDQUOT", "EIO", "EROFS", "EFBIG", "EACCES", "EPERM"]);

/** A failed write as the agent reports it: MEMORY_WRITE_FAILED for a full disk or a permission, anything else as it was. */
export function toWriteError(error: unknown): unknown {
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

export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}

/** What `work` gives, or `absent` when the file or folder it reads does not exist; any other error is thrown. */
export async function unlessMissing<T, A>(work: Promise<T>, absent: A): Promise<T | A> {
  try {
    return await work;
  } catch (error) {
    if (isMissing(error)) return absent;
    throw error;
  }
}

async function fsyncFolder(folder: string): Promise<void> {
  const handle = await open(folder, fsConstants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Replaces a file atomically: a temp file beside it, fsync, rename, fsync of the folder. */
export async function writeFileAtomic(absolute: string, data: string | Uint8Array, mode: number): Promise<void> {
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
}

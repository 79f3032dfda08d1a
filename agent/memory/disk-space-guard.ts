import { statfs } from "node:fs/promises";
import fp from "fastify-plugin";
import { AppError } from "../errors/app-error";

/**
 * Space a change must find free on the disk holding ELNOR_MEMORY before it starts. A session
 * change writes a few appends and a few small views (a few KB in all); with less than this free,
 * a change could land in some files and not others, so it is refused before anything is written.
 */
export const MEMORY_SPACE_RESERVE_BYTES = 64 * 1024;

export interface DiskSpaceGuardOptions {
  root: string;
  reserveBytes?: number;
}

const CHANGES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Refuses a request that changes something (MEMORY_WRITE_FAILED, 507) while the memory's disk is full. */
export const diskSpaceGuard = fp<DiskSpaceGuardOptions>(async (app, options) => {
  const reserve = options.reserveBytes ?? MEMORY_SPACE_RESERVE_BYTES;
  app.addHook("preHandler", async (request) => {
    if (!CHANGES.has(request.method)) return;
    const disk = await statfs(options.root).catch(() => undefined);
    if (disk !== undefined && disk.bavail * disk.bsize < reserve) {
      throw new AppError("MEMORY_WRITE_FAILED", "The disk holding ELNOR_MEMORY is full: free some space, then try again. Nothing was changed.");
    }
  });
});

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { openMemoryStore, type MemoryStore } from "../memory/memory-store";

/** A fresh ELNOR_MEMORY folder per test; removed by the returned cleanup. */
export async function makeTempMemoryRoot(prefix = "elnor-memory-"): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(path.join(tmpdir(), prefix));
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** A memory store opened on a fresh ELNOR_MEMORY folder; the cleanup closes it and removes the folder. */
export async function openTempMemoryStore(prefix?: string): Promise<{ memory: MemoryStore; cleanup: () => Promise<void> }> {
  const temp = await makeTempMemoryRoot(prefix);
  const memory = await openMemoryStore({ root: temp.root });
  return {
    memory,
    cleanup: async () => {
      await memory.close();
      await temp.cleanup();
    },
  };
}

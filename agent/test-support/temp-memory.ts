import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/** A fresh ELNOR_MEMORY folder per test; removed by the returned cleanup. */
export async function makeTempMemoryRoot(prefix = "elnor-memory-"): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(path.join(tmpdir(), prefix));
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

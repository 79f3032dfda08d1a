import { open } from "node:fs/promises";
import path from "node:path";
import { openMemoryStore } from "../../agent/memory/memory-store";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import type { BenchResult } from "../bench-result";

const RECORD = { event_id: "00000000-0000-4000-8000-000000000000", action_label: "Click 'Place order'", pad: "x".repeat(220) };

/**
 * Durable appends per second: the store's group commit (many callers, one fsync per batch)
 * against the disk's raw rate of one write+fsync per record, measured in the same run so the
 * ratio is honest about this machine's disk.
 */
export async function benchMemoryAppend(records = 5000): Promise<BenchResult[]> {
  const { root, cleanup } = await makeTempMemoryRoot("elnor-bench-");
  try {
    const line = `${JSON.stringify(RECORD)}\n`;
    const rawFile = await open(path.join(root, "raw.jsonl"), "a");
    const rawStart = performance.now();
    for (let i = 0; i < records; i += 1) {
      await rawFile.write(line);
      await rawFile.datasync();
    }
    const rawSeconds = (performance.now() - rawStart) / 1000;
    await rawFile.close();

    const store = await openMemoryStore({ root });
    const storeStart = performance.now();
    const inFlight = 256;
    for (let done = 0; done < records; done += inFlight) {
      const batch = Math.min(inFlight, records - done);
      await Promise.all(Array.from({ length: batch }, () => store.append("system/learning/bench.jsonl", RECORD)));
    }
    const storeSeconds = (performance.now() - storeStart) / 1000;
    await store.close();

    const rawRate = records / rawSeconds;
    const storeRate = records / storeSeconds;
    return [
      {
        name: "memory store: durable appends/s (group commit, 256 in flight)",
        value: storeRate,
        unit: "records/s",
        baselineName: "raw append+fsync per record, same disk",
        baseline: rawRate,
        target: "≥ 0.5× raw (issue #4 ingest target builds on this)",
        pass: storeRate >= 0.5 * rawRate,
      },
    ];
  } finally {
    await cleanup();
  }
}

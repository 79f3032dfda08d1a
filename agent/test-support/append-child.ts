// Child process for the crash test: appends numbered records for ever and prints each number
// once the store has acknowledged it as durable. The parent SIGKILLs it mid-stream.
import { openMemoryStore } from "../memory/memory-store";

const root = process.argv[2];
if (root === undefined) throw new Error("usage: append-child <memory-root>");
const store = await openMemoryStore({ root });
let next = 0;
const payload = "x".repeat(200);
for (;;) {
  // Several appends in flight at once, as ingest does, so group commit is exercised.
  const batch = [next, next + 1, next + 2, next + 3];
  next += 4;
  await Promise.all(
    batch.map(async (seq) => {
      await store.append("system/learning/receipts.jsonl", { seq, payload });
      process.stdout.write(`${seq}\n`);
    }),
  );
}

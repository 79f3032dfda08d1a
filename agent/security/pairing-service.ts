import { PairingRecordSchema, type PairingRecord } from "../../shared/common/pairing";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";

export interface PairingService {
  /** The paired extension, read once at start and kept current by `pair`; the guard asks on every request. */
  current(): PairingRecord | undefined;
  pair(extensionId: string): Promise<PairingRecord>;
}

export async function createPairingService(deps: { memory: MemoryStore; now: () => Date }): Promise<PairingService> {
  let record = await deps.memory.readJson(MemoryPaths.agentPairing, PairingRecordSchema);
  return {
    current: () => record,
    async pair(extensionId) {
      const next = PairingRecordSchema.parse({
        extension_id: extensionId,
        paired_at: deps.now().toISOString(),
        schema_version: 1,
      });
      await deps.memory.writeJson(MemoryPaths.agentPairing, next);
      record = next;
      return next;
    },
  };
}

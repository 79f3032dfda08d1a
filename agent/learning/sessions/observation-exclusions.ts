import { z } from "zod";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";

export const ExclusionsFileSchema = z.object({ event_ids: z.array(z.string().uuid()) });

/** The session's excluded event ids (issue #7 "exclude events"); the proposal compiler skips them. */
export async function readExclusions(memory: MemoryStore, sessionId: string): Promise<string[]> {
  return (await memory.readJson(MemoryPaths.observationExclusions(sessionId), ExclusionsFileSchema))?.event_ids ?? [];
}

import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { apiClient, type ApiClient } from "./api-fixture";
import { startListeningAgent } from "./listening-agent";

/**
 * What the fault drills share (`agent/adversarial/fault-drill-*.test.ts`): the seed and the number of
 * rounds, an ELNOR_MEMORY prepared through the API, and what a user of the API sees of a session.
 * Kill points come from fast-check with DRILL_SEED (default below, printed with each round's
 * failure); DRILL_ROUNDS changes the number of rounds (default 20).
 */
export const DRILL_SEED = Number(process.env.DRILL_SEED ?? 20_260_108);
export const ROUNDS = Number(process.env.DRILL_ROUNDS ?? 20);

/** An ELNOR_MEMORY `<scratch>/<name>` prepared through the HTTP API of an in-process agent, then closed. */
export async function prepareMemory<T>(scratch: string, name: string, build: (api: ApiClient) => Promise<T>): Promise<{ root: string; value: T }> {
  const root = path.join(scratch, name);
  await rm(root, { recursive: true, force: true });
  const agent = await startListeningAgent(root);
  try {
    return { root, value: await build(apiClient(agent.url, agent.token)) };
  } finally {
    await agent.close();
  }
}

export async function tokenOf(root: string): Promise<string> {
  return (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
}

/** Every event id the agent serves for a session, page after page (what a user of the API sees). */
export async function servedEventIds(api: ApiClient, sessionId: string): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const after = ids.at(-1);
    const page = await api.ok("GET", `/api/learn/sessions/${sessionId}/observations?limit=500${after === undefined ? "" : `&after=${after}`}`);
    const events = page.events as Array<{ event_id: string }>;
    ids.push(...events.map((event) => event.event_id));
    if (events.length < 500) return ids;
  }
}

export const duplicatesIn = (ids: readonly string[]) => ids.filter((id, index) => ids.indexOf(id) !== index);

import { appendFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../test-support/agent-process";
import { apiClient, clickEvent, startCapturingSession, type ApiClient } from "../test-support/adversarial/api-fixture";
import { checkMemoryIntegrity, killHard, readLog } from "../test-support/adversarial/drill-checks";
import { DRILL_SEED, ROUNDS, duplicatesIn, prepareMemory as prepareIn, servedEventIds, tokenOf } from "../test-support/adversarial/drill-memory";
import { streamOverHttp, streamOverSocket } from "../test-support/adversarial/event-streams";
import { startListeningAgent } from "../test-support/adversarial/listening-agent";

/**
 * Issue #8 fault drill: the real agent (`agent/server.ts` as a child process) killed with SIGKILL
 * at seeded random points while it ingests (DRILL_SEED, DRILL_ROUNDS: drill-memory.ts). What is
 * promised (DESIGN §5): nothing acknowledged is lost or doubled, no file is left corrupt, and the
 * agent starts again. Two agents on one ELNOR_MEMORY are covered by agent/server.test.ts, a SIGKILL
 * mid-append of the bare store by agent/memory/memory-store.test.ts; these drills kill the whole agent.
 * The install saga: `fault-drill-install.test.ts`; a full disk: `fault-drill-disk.test.ts`.
 */
let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "elnor-fault-drills-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});
const prepareMemory = <T>(name: string, build: (api: ApiClient) => Promise<T>) => prepareIn(scratch, name, build);

describe("fault drill: SIGKILL while ingesting", () => {
  it(`keeps every acknowledged event exactly once and every log readable across ${ROUNDS} kills`, async () => {
    const { root, value: sessionId } = await prepareMemory("ingest", (api) => startCapturingSession(api, "Export the monthly invoices"));
    const workspace = path.join(scratch, "ingest-workspace");
    const eventsFile = path.join(root, "system/learning/observations", sessionId, "events.jsonl");
    const token = await tokenOf(root);
    const delays = fc.sample(fc.integer({ min: 20, max: 400 }), { seed: DRILL_SEED, numRuns: ROUNDS });
    const acknowledged = new Set<string>();
    const sent = new Set<string>();
    let tornTails = 0;
    let agent: AgentProcess | undefined;
    try {
      for (const [round, delay] of delays.entries()) {
        const context = `round ${round} (DRILL_SEED=${DRILL_SEED}, kill after ${delay} ms)`;
        // The restart: a fresh process takes over the dead one's lock and reads everything back.
        agent = await startAgentProcess(root, { OPENCLAW_WORKSPACE: workspace });
        const api = apiClient(agent.url, token);
        expect((await api.ok("GET", `/api/learn/sessions/${sessionId}/detail`)).state, context).toBe("capturing");
        const served = await servedEventIds(api, sessionId);
        expect(duplicatesIn(served), `served twice, ${context}`).toEqual([]);
        expect(
          [...acknowledged].filter((id) => !served.includes(id)),
          `acknowledged but lost, ${context}`,
        ).toEqual([]);
        const stored = readLog<{ event_id: string }>(eventsFile).map((event) => event.event_id);
        expect(duplicatesIn(stored), `stored twice, ${context}`).toEqual([]);
        expect(
          stored.filter((id) => !sent.has(id)),
          `stored but never sent, ${context}`,
        ).toEqual([]);
        const integrity = checkMemoryIntegrity(root);
        expect(integrity.corrupt, context).toEqual([]);
        tornTails += integrity.tornTails.length;

        const streams = Promise.all([streamOverSocket(agent.url, token, sessionId), streamOverHttp(agent.url, token, sessionId)]);
        await new Promise((resolve) => setTimeout(resolve, delay));
        await killHard(agent.proc);
        for (const result of await streams) {
          expect(result.errors, context).toEqual([]);
          for (const id of result.sent) sent.add(id);
          for (const id of result.acknowledged) acknowledged.add(id);
        }
        // SIGKILL never tears a line (each flush is one write of whole lines, and the kernel finishes
        // it); a power cut can. Every fourth round leaves what one would, for the restart to repair.
        if (round % 4 === 3) appendFileSync(eventsFile, '{"event_id":"torn-by-a-power-cut","learn_sess');
      }
      expect(acknowledged.size, "the drill acknowledged too little to mean anything").toBeGreaterThan(ROUNDS * 20);
      if (process.env.DRILL_STATS !== undefined)
        console.log(`ingest drill: ${sent.size} events sent, ${acknowledged.size} acknowledged, ${tornTails} torn log tails found at restarts`);

      // Last restart, in process: the next append cuts any torn tail, after which every line is whole.
      const final = await startListeningAgent(root);
      try {
        const api = apiClient(final.url, final.token);
        const extra = clickEvent(sessionId, "After the last crash");
        expect(
          (await api.ok("POST", "/api/observations/events", { batch_id: crypto.randomUUID(), events: [extra], snapshots: [], schema_version: 1 })).accepted,
        ).toEqual([extra.event_id]);
        const served = await servedEventIds(api, sessionId);
        expect(duplicatesIn(served)).toEqual([]);
        expect([...acknowledged].filter((id) => !served.includes(id))).toEqual([]);
      } finally {
        await final.close();
      }
      const integrity = checkMemoryIntegrity(root);
      expect(integrity.corrupt).toEqual([]);
      expect(integrity.tornTails).not.toContain(path.relative(root, eventsFile));
      const text = await readFile(eventsFile, "utf8");
      expect(text.endsWith("\n")).toBe(true);
    } finally {
      if (agent !== undefined) await killHard(agent.proc);
    }
  }, 240_000);
});

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RunEventEnvelopeSchema, RunResponseSchema, type RunRecord } from "../../../shared/execution/run-contract";
import { serveRunFixtureSite, type RunFixtureSite } from "../../test-support/run-fixture";
import { bootScriptedAgent, startRun } from "../../test-support/scripted-executor";
import { type TestAgent, type TestAgentOptions } from "../../test-support/test-agent";

/** Past runs listed and a run's events (run-events-route.ts), replayed after Last-Event-ID and live over real HTTP, with the scripted executor. */
let site: RunFixtureSite;
beforeAll(async () => {
  site = await serveRunFixtureSite();
});
afterAll(async () => {
  await site.close();
});

let agent: TestAgent;
let abilityId: string;
async function boot(options: TestAgentOptions = {}) {
  ({ agent, abilityId } = await bootScriptedAgent(site, options));
}
afterEach(async () => {
  await agent?.close();
});

const start = (body: Record<string, unknown>) => startRun(agent, abilityId, body);

describe("past runs and their events", () => {
  it("lists runs newest first, by page and by ability, and replays a run's events after Last-Event-ID", async () => {
    await boot();
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const run = RunResponseSchema.parse(
        (await start({ test_policy: { policy_id: crypto.randomUUID(), mode: "dry_run_only", allowed_domains: [site.host], schema_version: 1 } })).body,
      ).run;
      await agent.call("POST", `/api/runs/${run.dispatch_id}/cancel`, { schema_version: 1 });
      ids.push(run.dispatch_id);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const page1 = (await agent.call("GET", `/api/runs?page=1&page_size=2&ability_id=${abilityId}`)).body;
    expect(page1.total).toBe(3);
    expect(page1.runs.map((run: RunRecord) => run.dispatch_id)).toEqual([ids[2], ids[1]]);
    expect((await agent.call("GET", "/api/runs?ability_id=learned.other")).body.total).toBe(0);

    const all = await agent.app.inject({ method: "GET", url: `/api/runs/${ids[0]}/events`, headers: agent.headers() });
    expect(all.headers["content-type"]).toContain("text/event-stream");
    const frames = all.body.split("\n\n").filter((block) => block.startsWith("id: "));
    const events = frames.map((block) =>
      RunEventEnvelopeSchema.parse(
        JSON.parse(
          block
            .split("\n")
            .find((line) => line.startsWith("data: "))
            ?.slice(6) ?? "{}",
        ),
      ),
    );
    expect(events[0]?.run.state).toBe("starting");
    expect(events.at(-1)).toMatchObject({ event: "run.finished", run: { state: "cancelled" } });
    const after = await agent.app.inject({ method: "GET", url: `/api/runs/${ids[0]}/events`, headers: agent.headers({ "last-event-id": "2" }) });
    const replayed = after.body
      .split("\n\n")
      .filter((block) => block.startsWith("id: "))
      .map((block) => Number(block.slice(4, block.indexOf("\n"))));
    expect(replayed[0]).toBe(3);
    expect(replayed.length).toBe(frames.length - 2);
  });
});

describe("GET /api/runs/:dispatchId/events, live", () => {
  it("sends each change of a running run with the whole run, a keepalive, and closes after run.finished", async () => {
    await boot({ keepaliveMs: 100 });
    const address = await agent.app.listen({ host: "127.0.0.1", port: 0 });
    // Listening, the agent serves its own port only: the rest of this test speaks real HTTP.
    const post = async (url: string, body: unknown) =>
      (
        await fetch(`${address}${url}`, {
          method: "POST",
          headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        })
      ).json() as Promise<Record<string, unknown>>;
    const run = RunResponseSchema.parse(
      await post("/api/runs", { ability_id: abilityId, inputs: { message: "Hello there", access_code: "code-1234" }, schema_version: 1 }),
    ).run;
    const response = await fetch(`${address}/api/runs/${run.dispatch_id}/events`, { headers: { authorization: `Bearer ${agent.token}` } });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    const read = async (until: (sofar: string) => boolean) => {
      while (!until(text)) {
        const chunk = await reader.read();
        if (chunk.done) return;
        text += new TextDecoder().decode(chunk.value);
      }
    };
    await read((sofar) => sofar.includes("event: run.needs_confirmation"));
    const asked = text
      .split("\n\n")
      .filter((block) => block.includes("event: run.needs_confirmation"))
      .map((block) => RunEventEnvelopeSchema.parse(JSON.parse(block.slice(block.indexOf("data: ") + 6))))[0];
    await read((sofar) => sofar.includes(":keepalive"));
    await post(`/api/runs/${run.dispatch_id}/confirm`, {
      confirmation_id: asked?.run.pending_confirmation?.confirmation_id,
      decision: "confirm",
      schema_version: 1,
    });
    await read(() => false);
    const events = text
      .split("\n\n")
      .filter((block) => block.startsWith("id: "))
      .map((block) => RunEventEnvelopeSchema.parse(JSON.parse(block.slice(block.indexOf("data: ") + 6))));
    expect(events.map((event) => event.event)).toEqual(
      expect.arrayContaining(["run.state", "run.step", "run.checkpoint", "run.needs_confirmation", "run.finished"]),
    );
    expect(events.at(-1)).toMatchObject({ event: "run.finished", run: { state: "succeeded" } });
    const ids = text
      .split("\n\n")
      .filter((block) => block.startsWith("id: "))
      .map((block) => Number(block.slice(4, block.indexOf("\n"))));
    expect(ids).toEqual(ids.map((_, index) => index + 1));
  });
});

import { readdir, readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installContactAbility, serveRunFixtureSite, type RunFixtureSite } from "../../agent/test-support/run-fixture";
import { RunResponseSchema, type RunRecord } from "../../shared/execution/run-contract";
import * as inTab from "../test-support/in-tab-world";
import { indicatorShown, startInTabWorld, tokenOf, waitUntil, type InTabWorld } from "../test-support/in-tab-world";

/**
 * "In my browser" (issue #21) in real Chromium with the built extension and a real agent: the
 * agent's user-tab provider borrows a tab through the extension's WebSocket and drives it with
 * puppeteer over the relayed CDP. The agent runs in-process here (listening on a real loopback
 * port) so the test can hold the provider the runs service is given (e2e/test-support/in-tab-world.ts).
 *
 * Here: runs of an installed ability in the person's tab through POST /api/runs; lending the tab
 * itself is in in-tab-lending.e2e.test.ts.
 */

let world: InTabWorld;
let app: InTabWorld["app"];
let memory: InTabWorld["memory"];
let other: string;
let otherHits: string[];

beforeAll(async () => {
  world = await startInTabWorld();
  ({ app, memory, other, otherHits } = world);
}, 90_000);

afterAll(async () => world?.close());

const badge = () => inTab.badge(world);
const allowInTab = () => inTab.allowInTab(world);
const personTab = (url: string) => inTab.personTab(world, url);

describe("runs of an installed ability in the person's tab, through POST /api/runs (issue #21)", () => {
  let site: RunFixtureSite;
  let abilityId: string;

  const call = async (method: "GET" | "POST", url: string, payload?: unknown) => {
    const response = await app.inject({
      method,
      url,
      headers: { host: `127.0.0.1:${(app.server.address() as AddressInfo).port}`, authorization: `Bearer ${await tokenOf(world)}` },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    return { status: response.statusCode, body: (response.body === "" ? {} : response.json()) as Record<string, any> };
  };

  async function until(dispatchId: string, done: (run: RunRecord) => boolean, timeoutMs = 40_000): Promise<RunRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = RunResponseSchema.parse((await call("GET", `/api/runs/${dispatchId}`)).body).run;
      if (done(run)) return run;
      if (Date.now() > deadline) throw new Error(`run never got there: ${JSON.stringify(run)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const over = (run: RunRecord) => run.completed_at !== undefined;
  const paused = (run: RunRecord) => run.state === "needs_confirmation" || over(run);

  const startInTab = async (tabId: number, inputs: Record<string, string>) => {
    const answer = await call("POST", "/api/runs", {
      ability_id: abilityId,
      inputs,
      where: "user_tab",
      tab_id: tabId,
      caller: "side_panel",
      schema_version: 1,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    return RunResponseSchema.parse(answer.body).run.dispatch_id;
  };

  beforeAll(async () => {
    site = await serveRunFixtureSite();
    ({ abilityId } = await installContactAbility(call, site));
  }, 30_000);
  afterAll(async () => site?.close());

  it("proves every checkpoint in the person's tab, asks before sending, shows RUN while acting; the secret is nowhere in ELNOR_MEMORY", async () => {
    await allowInTab();
    const canary = `CANARY-tab-${crypto.randomUUID().slice(0, 8)}`;
    const { page, tabId } = await personTab(`${site.origin}/start`);
    const sendsBefore = site.sends();
    const dispatchId = await startInTab(tabId, { message: "Hello from my tab", access_code: canary });
    const waiting = await until(dispatchId, paused);
    expect(waiting.state, JSON.stringify(waiting.failure)).toBe("needs_confirmation");
    expect(waiting.where).toBe("user_tab");
    // The person sees the assistant at work in their own tab, paused before the send.
    expect(page.url()).toBe(`${site.origin}/contact`);
    expect((await badge()).text).toBe("RUN");
    expect(await indicatorShown(page)).toBe(true);
    expect(site.sends()).toBe(sendsBefore);
    const confirmed = await call("POST", `/api/runs/${dispatchId}/confirm`, {
      confirmation_id: waiting.pending_confirmation?.confirmation_id,
      decision: "confirm",
      schema_version: 1,
    });
    expect(confirmed.status).toBe(200);

    const done = await until(dispatchId, over);
    expect(done.state, JSON.stringify(done.failure)).toBe("succeeded");
    expect(done.checkpoints.length).toBeGreaterThan(0);
    expect(done.checkpoints.every((checkpoint) => checkpoint.status === "reached")).toBe(true);
    expect(site.sends()).toBe(sendsBefore + 1);
    expect(await page.$eval("h1", (node) => node.textContent)).toBe("Message sent");
    // Given back: no badge, no bar, the tab stays open where the run left it.
    await waitUntil(badge, (seen) => seen.text === "", "the RUN badge to go");
    await waitUntil(
      async () => page.$("elnor-run-indicator"),
      (host) => host === null,
      "the bar to go",
    );
    await app.learning.runs.store.settle();
    const files = (await readdir(memory.root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    for (const entry of files) {
      expect((await readFile(path.join(entry.parentPath, entry.name))).toString("latin1"), entry.name).not.toContain(canary);
    }
    await page.close();
  }, 60_000);

  it("Stop in the page cancels the run at once: nothing is sent", async () => {
    await allowInTab();
    const { page, tabId } = await personTab(`${site.origin}/start`);
    const sendsBefore = site.sends();
    const dispatchId = await startInTab(tabId, { message: "Never sent", access_code: "code-1" });
    expect((await until(dispatchId, paused)).state).toBe("needs_confirmation");
    await page.locator("::-p-aria(Stop the assistant)").click();
    const ended = await until(dispatchId, over, 10_000);
    expect(ended.state).toBe("cancelled");
    await waitUntil(badge, (seen) => seen.text === "", "the RUN badge to go");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(site.sends()).toBe(sendsBefore);
    await page.close();
  }, 60_000);

  it("stops at a checkpoint that no longer holds, with what the person's tab showed and a screenshot", async () => {
    await allowInTab();
    site.breakConfirmation(true);
    const { page, tabId } = await personTab(`${site.origin}/start`);
    try {
      const dispatchId = await startInTab(tabId, { message: "Hello", access_code: "code-2" });
      const asked = await until(dispatchId, paused);
      await call("POST", `/api/runs/${dispatchId}/confirm`, {
        confirmation_id: asked.pending_confirmation?.confirmation_id,
        decision: "confirm",
        schema_version: 1,
      });
      const failed = await until(dispatchId, over);
      expect(failed.state).toBe("failed");
      expect(failed.failure?.code).toBe("CHECKPOINT_NOT_CONFIRMED");
      expect(failed.failure?.page_seen).toMatchObject({ title: "Error — Run Shop", headings: ["Something went wrong"] });
      const shot = await app.inject({
        method: "GET",
        url: failed.failure?.page_seen?.screenshot_ref as string,
        headers: { host: `127.0.0.1:${(app.server.address() as AddressInfo).port}`, authorization: `Bearer ${await tokenOf(world)}` },
      });
      expect(shot.rawPayload.subarray(1, 4).toString()).toBe("PNG");
      await waitUntil(badge, (seen) => seen.text === "", "the RUN badge to go");
    } finally {
      site.breakConfirmation(false);
      await page.close();
    }
  }, 60_000);

  it("the run's own network guard works in the person's tab: a page that sends to another site fails the run and nothing reaches it", async () => {
    await allowInTab();
    site.leakTo(other);
    otherHits.length = 0;
    const { page, tabId } = await personTab(`${site.origin}/start`);
    try {
      const dispatchId = await startInTab(tabId, { message: "x", access_code: "y" });
      const ended = await until(dispatchId, paused);
      if (ended.state === "needs_confirmation") {
        await call("POST", `/api/runs/${dispatchId}/confirm`, {
          confirmation_id: ended.pending_confirmation?.confirmation_id,
          decision: "decline",
          schema_version: 1,
        });
      }
      const final = await until(dispatchId, over);
      expect(final.state).toBe("failed");
      expect(final.failure?.code).toBe("TEST_POLICY_VIOLATION");
      expect(otherHits).toEqual([]);
    } finally {
      site.leakTo(undefined);
      await page.close();
    }
  }, 60_000);

  it("a run in a tab showing another site is refused before anything is done there", async () => {
    await allowInTab();
    const { page, tabId } = await personTab(`${other}/start`);
    const dispatchId = await startInTab(tabId, { message: "x", access_code: "y" });
    const ended = await until(dispatchId, over);
    expect(ended.state).toBe("failed");
    expect(ended.failure?.message).toMatch(/not one of the sites this run may touch/);
    expect(page.url()).toBe(`${other}/start`);
    await page.close();
  }, 60_000);
});

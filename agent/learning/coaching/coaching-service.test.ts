import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CoachingStateSchema, type CoachingState } from "../../../shared/learning/sessions/coaching";
import type { BrowserLease } from "../../execution/contract/executor-contract";
import { shareChromiumInFile } from "../../test-support/shared-chromium";
import type { UserTabProvider } from "../../execution/in-tab/user-tab-provider";
import { MemoryPaths } from "../../memory/memory-paths";
import { startTestAgent, type TestAgent } from "../../test-support/test-agent";
import { COACHING_HIGHLIGHT_TAG as HIGHLIGHT_TAG } from "../../../shared/observation/coaching-read";
import { recordLikeTheExtension } from "../../test-support/coaching-recorder";

/**
 * The Coaching Agent's turns through the real agent, its executor and Debian's Chromium, on the
 * invoices fixture (e2e/improve/coaching-fixtures). The person's tab is stood in for by a headless page
 * lent as a `user_tab` (the extension's relay is tested in e2e/improve/coaching.e2e.test.ts); everything
 * else — the matcher, the page reading, the highlight, "Do it" through the executor, the page check,
 * the step marks — is the production code.
 */
const FIXTURE = path.join(import.meta.dirname, "../../../e2e/improve/coaching-fixtures/invoices.html");

/** Pages of one Chromium started for this file, each in a fresh context (`shared-chromium.ts`). */
const chromium = shareChromiumInFile();

let server: Server;
let origin: string;
let agent: TestAgent;
let lent: BrowserLease[] = [];
let released = 0;

/**
 * A headless page lent as if it were the person's tab, recorded by the extension's content capture
 * (as the person's tab is during a coaching): `release` only counts (the test closes it).
 */
const tabs: UserTabProvider = {
  connected: () => true,
  lease:
    () =>
    async ({ deadline }) => {
      const lease = await chromium({ deadline });
      const readRecorded = await recordLikeTheExtension(lease.page, [origin]);
      lent.push(lease);
      return { ...lease, where: "user_tab", readRecorded, release: async () => void (released += 1) };
    },
};

beforeAll(async () => {
  const html = await readFile(FIXTURE);
  server = createServer((request, response) => response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGES[request.url ?? ""] ?? html));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});
beforeEach(async () => {
  lent = [];
  released = 0;
  agent = await startTestAgent({ userTab: tabs });
});
afterEach(async () => {
  await agent.close();
  for (const lease of lent) await lease.release();
});

const STEPS = [{ words: "open the invoices page" }, { words: "filter by last month", hint: "the period buttons" }, { words: "export as CSV" }];

async function coachingSession(): Promise<string> {
  // The browser's capture adapter is up, as the extension's heartbeat says (a start needs one).
  await agent.call("POST", "/api/observation/adapters/heartbeat", { adapter_id: "ext", kind: "browser_dom", schema_version: 1 });
  const created = await agent.call("POST", "/api/learn/sessions", {
    entry_mode: "coaching_agent",
    observation_mode: "outside_agent",
    target_app_whitelist: [origin],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.session.learn_session_id as string;
}

async function until(sessionId: string, done: (state: CoachingState) => boolean, timeoutMs = 30_000): Promise<CoachingState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = CoachingStateSchema.parse((await agent.call("GET", `/api/learn/sessions/${sessionId}/coaching`)).body);
    if (done(state)) return state;
    if (Date.now() > deadline) throw new Error(`coaching never got there: ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const waiting = (turn: number) => (state: CoachingState) =>
  state.turns.some((entry) => entry.turn === turn && (entry.status === "awaiting_answer" || entry.status === "user_showing")) || state.status === "failed";

describe("coaching turns in a real page", () => {
  it("finds two steps by the person's words and does them in the tab, then lets the person show the third", async () => {
    const id = await coachingSession();
    const setUp = await agent.call("POST", `/api/learn/sessions/${id}/coaching`, { start_url: `${origin}/#/`, steps: STEPS });
    expect(setUp.status, JSON.stringify(setUp.body)).toBe(200);
    expect(setUp.body.status).toBe("waiting_for_capture");
    expect((await agent.call("POST", `/api/learn/sessions/${id}/start`, {})).status).toBe(200);

    // Turn 1: the "Invoices" link, framed in the page.
    let state = await until(id, waiting(1));
    expect(state.turns[0]).toMatchObject({ status: "awaiting_answer", target: { role: "link", name: "Invoices" } });
    expect(state.turns[0]?.target?.why).toContain("'invoices'");
    // The proposal is a session event too: a watching panel hears of it on the session's stream.
    const heard = async () =>
      (await agent.app.learning.events.since(id, 0)).filter((event) => event.event === "coaching.turn").map((event) => event.data.payload);
    for (let tries = 0; tries < 40 && (await heard()).length < 2; tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await heard()).toEqual([
      { turn: 1, step_index: 0, status: "proposing" },
      { turn: 1, step_index: 0, status: "awaiting_answer" },
    ]);
    const page = lent[0]!.page;
    expect(await page.evaluate((tag) => document.querySelectorAll(tag).length, HIGHLIGHT_TAG)).toBe(1);

    // A stale or wrong answer changes nothing.
    const stale = await agent.call("POST", `/api/learn/sessions/${id}/coaching/answer`, { turn: 2, answer: "do_it" });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("COACHING_TURN_MISMATCH");
    expect((await agent.call("POST", `/api/learn/sessions/${id}/coaching/shown`, { turn: 1 })).body.error.code).toBe("COACHING_TURN_MISMATCH");
    expect((await agent.call("POST", `/api/learn/sessions/${id}/coaching/answer`, { turn: 1, answer: "maybe" })).status).toBe(400);
    expect(page.url()).toBe(`${origin}/#/`);

    await agent.call("POST", `/api/learn/sessions/${id}/coaching/answer`, { turn: 1, answer: "do_it" });
    state = await until(id, waiting(2));
    expect(state.turns[0]).toMatchObject({ status: "done", answer: "do_it", page_check: { changed: true } });
    expect(state.turns[0]?.page_check?.evidence).toContain('"Invoices" appeared');
    expect(page.url()).toBe(`${origin}/#/invoices`);

    // Turn 2: the "Last month" button, found with the hint's help; the page shows the filter on.
    expect(state.turns[1]).toMatchObject({ target: { role: "button", name: "Last month" } });
    await agent.call("POST", `/api/learn/sessions/${id}/coaching/answer`, { turn: 2, answer: "do_it" });
    state = await until(id, waiting(3));
    expect(state.turns[1]).toMatchObject({ status: "done", page_check: { changed: true } });
    expect(await page.$eval("::-p-text(Last month)", (button) => button.getAttribute("aria-pressed"))).toBe("true");

    // Turn 3: the export control shows only on hover, so nothing fits; "Do it" is refused, the person shows it.
    expect(state.turns[2]?.target).toBeUndefined();
    const refused = await agent.call("POST", `/api/learn/sessions/${id}/coaching/answer`, { turn: 3, answer: "do_it" });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("REQUEST_INVALID");
    await agent.call("POST", `/api/learn/sessions/${id}/coaching/answer`, { turn: 3, answer: "show_me" });
    state = await until(id, waiting(3));
    expect(state.turns[2]?.status).toBe("user_showing");
    // "I did it" before anything was recorded is refused.
    const early = await agent.call("POST", `/api/learn/sessions/${id}/coaching/shown`, { turn: 3 });
    expect(early.body.error.code).toBe("INSUFFICIENT_TRACES");
    const event = {
      event_id: randomUUID(),
      learn_session_id: id,
      adapter_kind: "browser_dom",
      app_family: "browser",
      action_label: "Click 'Download spreadsheet'",
      redaction_mode: "mask_text",
      created_at: new Date().toISOString(),
      schema_version: 1,
      browser_detail: {
        page_url: `${origin}/#/invoices`,
        target_role: "button",
        target_name: "Download spreadsheet",
        selectors: [['aria/Download spreadsheet[role="button"]']],
        dom_event_kind: "click",
      },
    };
    expect((await agent.call("POST", "/api/observations/events", { batch_id: randomUUID(), events: [event], snapshots: [], schema_version: 1 })).status).toBe(
      200,
    );
    expect((await agent.call("POST", `/api/learn/sessions/${id}/coaching/shown`, { turn: 3 })).status).toBe(200);
    state = await until(id, (current) => current.status === "finished");
    expect(state.turns.map((turn) => turn.status)).toEqual(["done", "done", "shown"]);
    expect(released).toBe(1);

    // The person's words mark the steps the agent did and the one the person showed.
    const boundaries = (await agent.memory.readText(MemoryPaths.boundaries)) ?? "";
    const marks = boundaries.split("\n").filter((line) => line.includes(id) && line.includes('"mark_step"'));
    expect(marks.map((line) => JSON.parse(line).label)).toEqual(["action: open the invoices page", "action: filter by last month", "action: export as CSV"]);
  }, 60_000);

  it("skips a step on 'Skip' and ends the turns when the session is cancelled", async () => {
    const id = await coachingSession();
    await agent.call("POST", `/api/learn/sessions/${id}/start`, {});
    await agent.call("POST", `/api/learn/sessions/${id}/coaching`, {
      start_url: `${origin}/#/`,
      steps: [{ words: "open the customers page" }, { words: "open the invoices page" }],
    });
    await until(id, waiting(1));
    await agent.call("POST", `/api/learn/sessions/${id}/coaching/answer`, { turn: 1, answer: "skip" });
    const state = await until(id, waiting(2));
    expect(state.turns[0]).toMatchObject({ status: "skipped", target: { name: "Customers" } });
    expect(lent[0]!.page.url()).toBe(`${origin}/#/`);
    await agent.call("POST", `/api/learn/sessions/${id}/cancel`, {});
    const ended = await until(id, (current) => current.status === "ended");
    expect(ended.message).toContain("ended");
    expect(released).toBe(1);
  }, 60_000);
});

describe("coaching set-up", () => {
  it("refuses steps for another mode, a start page off the session's sites, and a second set-up, writing nothing", async () => {
    const demo = await agent.call("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_whitelist: ["http://127.0.0.1:9"],
    });
    const demoId = demo.body.session.learn_session_id as string;
    const other = await agent.call("POST", `/api/learn/sessions/${demoId}/coaching`, { start_url: "http://127.0.0.1:9/", steps: STEPS });
    expect(other.status).toBe(400);
    expect(await agent.memory.readText(`${MemoryPaths.observationFolder(demoId)}/coaching.json`)).toBeUndefined();
    await agent.call("POST", `/api/learn/sessions/${demoId}/cancel`, {});

    const id = await coachingSession();
    const offSite = await agent.call("POST", `/api/learn/sessions/${id}/coaching`, { start_url: "https://elsewhere.example/", steps: STEPS });
    expect(offSite.status).toBe(400);
    expect(offSite.body.error.issues?.[0]?.path ?? JSON.stringify(offSite.body)).toContain("start_url");
    expect((await agent.call("POST", `/api/learn/sessions/${id}/coaching`, { start_url: `${origin}/`, steps: [] })).status).toBe(400);
    expect((await agent.call("GET", `/api/learn/sessions/${id}/coaching`)).body.error.code).toBe("LEARN_SESSION_NOT_FOUND");
    expect((await agent.call("POST", `/api/learn/sessions/${id}/coaching`, { start_url: `${origin}/`, steps: STEPS })).status).toBe(200);
    const again = await agent.call("POST", `/api/learn/sessions/${id}/coaching`, { start_url: `${origin}/`, steps: [{ words: "something else" }] });
    expect(again.body.error.code).toBe("INVALID_LEARN_STATE_TRANSITION");
    expect(CoachingStateSchema.parse((await agent.call("GET", `/api/learn/sessions/${id}/coaching`)).body).steps).toEqual(STEPS);
    // Cancelled before it was started: the coaching says it ended, and never borrows a tab.
    await agent.call("POST", `/api/learn/sessions/${id}/cancel`, {});
    const deadline = Date.now() + 5_000;
    let ended = CoachingStateSchema.parse((await agent.call("GET", `/api/learn/sessions/${id}/coaching`)).body);
    while (ended.status !== "ended" && Date.now() < deadline)
      ended = CoachingStateSchema.parse((await agent.call("GET", `/api/learn/sessions/${id}/coaching`)).body);
    expect(ended.status).toBe("ended");
    expect(lent).toEqual([]);
  });
});

/** Pages for what coaching reads: fields with typed values, and a page that echoes what is typed. */
const PAGES: Record<string, string> = {
  "/fields":
    '<title>Fields</title><label>Email <input id="email"></label><textarea aria-label="Notes"></textarea><input type="submit" value="Send"><button>Save</button>',
  // A search that echoes the query as a tag chip, a heading and a hash route, as many apps do.
  "/echo": `<title>Search</title><label>Search <input id="q"></label><div id="out"></div><script>
    document.getElementById("q").addEventListener("input", (event) => {
      const value = event.target.value;
      const heading = document.createElement("h2");
      heading.textContent = "Results for " + value;
      const chip = document.createElement("button");
      chip.textContent = value + " ×";
      chip.setAttribute("aria-pressed", "true");
      document.getElementById("out").replaceChildren(heading, chip);
      document.title = value + " - Search";
      history.replaceState(null, "", "#/search/" + encodeURIComponent(value));
    });
  </script>`,
};

describe("what coaching reads of a page", () => {
  const openPage = async (recorded: "recorded" | "not recorded" | "another site") => {
    const lease = await chromium({ deadline: Date.now() + 20_000 });
    if (recorded === "not recorded") return lease;
    const readRecorded = await recordLikeTheExtension(lease.page, recorded === "recorded" ? [origin] : ["https://elsewhere.example"]);
    return { ...lease, readRecorded };
  };

  it("names fields by their label and never reads what was typed into them", async () => {
    const { readPage } = await import("./coaching-page");
    const lease = await openPage("recorded");
    try {
      await lease.page.goto(`${origin}/fields`);
      const canary = `zq8-coaching-canary-${randomUUID().slice(0, 8)}`;
      await lease.page.type("#email", canary);
      await lease.page.type("textarea", canary);
      const read = await readPage(lease);
      expect(read.controls.map((control) => `${control.role}:${control.name}`)).toEqual(["textbox:Email", "textbox:Notes", "button:Send", "button:Save"]);
      expect(JSON.stringify(read)).not.toContain(canary);
    } finally {
      await lease.release();
    }
  }, 30_000);

  it("gets what the page echoes of a typed value with the value cut out, and still frames the control", async () => {
    const { readPage } = await import("./coaching-page");
    const lease = await openPage("recorded");
    try {
      await lease.page.goto(`${origin}/echo`);
      const canary = `zq8canary${randomUUID().slice(0, 8)}`;
      await lease.page.type("#q", canary);
      expect(await lease.page.evaluate(() => document.body.innerText)).toContain(canary);
      const read = await readPage(lease);
      expect(JSON.stringify(read)).not.toContain(canary);
      expect(read.controls.map((control) => `${control.role}:${control.name}`)).toEqual(["textbox:Search", "button:••• ×"]);
      expect(read.facts.headings).toEqual(["Results for •••"]);
      expect(read.facts.title).toBe("••• - Search");
      // The URL rule masks it as a secret when it looks like a token, or names it by its reference
      // (`*typed-<ref>*`) when not; the random canary may read as either. The value is cut out both ways.
      expect(read.facts.address.startsWith(`${origin}/echo#/search/`)).toBe(true);
      expect(read.facts.address.slice(`${origin}/echo#/search/`.length)).toMatch(/^\*(?:typed-[0-9a-f]+\*)?$/);
      expect(read.facts.states).toEqual(["button:••• ×:aria-pressed=true"]);
      // The highlight frames the very control of the last read at that place.
      await readPage(lease, { order: 1, name: "••• ×", label: "About to: click" });
      expect(await lease.page.evaluate((tag) => document.querySelectorAll(tag).length, HIGHLIGHT_TAG)).toBe(1);
    } finally {
      await lease.release();
    }
  }, 30_000);

  for (const recorded of ["not recorded", "another site"] as const) {
    it(`returns nothing it read when no recorder answers (${recorded})`, async () => {
      const { readPage } = await import("./coaching-page");
      const lease = await openPage(recorded);
      try {
        await lease.page.goto(`${origin}/echo`);
        const canary = `zq8canary${randomUUID().slice(0, 8)}`;
        await lease.page.type("#q", canary);
        const started = Date.now();
        const failure: unknown = await readPage(lease, { order: 1, name: `${canary} ×`, label: "About to: click" }, { waitMs: 600 }).then(
          (read) => read,
          (error: unknown) => error,
        );
        expect(failure).toMatchObject({ code: "ADAPTER_UNAVAILABLE" });
        expect(String((failure as Error).message)).not.toContain(canary);
        // A recorder that does not record this page is asked again until the wait is over; a tab with none fails at once.
        if (recorded === "another site") expect(Date.now() - started).toBeGreaterThanOrEqual(500);
        // Nothing framed either: nothing was read.
        expect(await lease.page.evaluate((tag) => document.querySelectorAll(tag).length, HIGHLIGHT_TAG)).toBe(0);
      } finally {
        await lease.release();
      }
    }, 30_000);
  }
});

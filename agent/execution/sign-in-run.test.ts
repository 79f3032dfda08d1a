import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunResponseSchema, type RunRecord } from "../../shared/execution/run-contract";
import { TestPolicySchema } from "../../shared/learning/sessions/test-policy";
import type { RecorderFlow } from "../../shared/execution/recorder-flow";
import { MemoryPaths } from "../memory/memory-paths";
import { installNotesAbility, serveSignInFixture, type SignInFixture } from "../test-support/sign-in-fixture";
import { startTestAgent, type TestAgent } from "../test-support/test-agent";
import { execute } from "./executor";
import type { BrowserProvider, ExecutionCheckpoint } from "./contract/executor-contract";
import { CHROMIUM_ARGS } from "./managed-browser";

/**
 * Issue #35 end to end: a demonstration that signs in to a server-rendered notes app (session
 * cookie, CSRF token) and writes a note, compiled and installed through the agent, then run twice
 * in one managed Chromium session with new inputs. The first run signs in; the second finds the
 * browser still signed in, skips the sign-in steps, still proves "Signed in as {{username}}", and
 * writes its note — checked in the app's own state. The password is nowhere in ELNOR_MEMORY.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const PASSWORD = `pw-${crypto.randomUUID().slice(0, 12)}`;

let site: SignInFixture;
let agent: TestAgent;
let browser: Browser | undefined;
let profile: string | undefined;
let abilityId: string;
/** The validation's rehearsal, run before install in a fresh managed profile. */
let validation: { status: number; body: Record<string, any> } | undefined;
let validationSteps: Array<{ test_case_id: string; result: string; details?: string }> = [];
let signInsBeforeRuns = 0;

/** One Chromium for every run of this file: a later run finds the session cookie of an earlier one. */
const sharedBrowser: BrowserProvider = async () => {
  if (browser === undefined) throw new Error("no browser");
  const page = await browser.newPage();
  return { where: "managed", browser, page, release: () => page.close().catch(() => undefined) };
};

beforeAll(async () => {
  site = await serveSignInFixture(PASSWORD);
  const { default: puppeteer } = await import("puppeteer-core");
  profile = await mkdtemp(path.join(tmpdir(), "elnor-sign-in-test-"));
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, pipe: true, userDataDir: profile, args: [...CHROMIUM_ARGS] });
  agent = await startTestAgent({ execute: (input) => execute({ ...input, browser: input.browser ?? sharedBrowser }) });
  const call = (method: "GET" | "POST", url: string, payload?: unknown) => agent.call(method, url, payload);
  ({ abilityId } = await installNotesAbility(call, site, async (proposalId) => {
    if (browser === undefined) return;
    validation = await call("POST", `/api/learn/proposals/${proposalId}/validate`, {
      test_values: { username: "alice", password: PASSWORD, title: "Rehearsal note" },
      schema_version: 1,
    });
    validationSteps = (await call("GET", `/api/learn/proposals/${proposalId}/validation-runs`)).body.steps;
  }));
  signInsBeforeRuns = site.signIns();
}, 90_000);
afterAll(async () => {
  await agent?.close();
  await browser?.close().catch(() => undefined);
  if (profile !== undefined) await rm(profile, { recursive: true, force: true });
  await site?.close();
});

async function until(dispatchId: string, done: (run: RunRecord) => boolean, timeoutMs = 40_000): Promise<RunRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = RunResponseSchema.parse((await agent.call("GET", `/api/runs/${dispatchId}`)).body).run;
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`run never got there: ${JSON.stringify(run)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A run with these inputs, the person confirming the committing "Save note" when asked. */
async function run(inputs: Record<string, string>): Promise<RunRecord> {
  const started = await agent.call("POST", "/api/runs", { ability_id: abilityId, inputs, schema_version: 1 });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const dispatchId = RunResponseSchema.parse(started.body).run.dispatch_id;
  for (;;) {
    const now = await until(dispatchId, (record) => record.state === "needs_confirmation" || record.completed_at !== undefined);
    if (now.completed_at !== undefined) return now;
    await agent.call("POST", `/api/runs/${dispatchId}/confirm`, {
      confirmation_id: now.pending_confirmation?.confirmation_id,
      decision: "confirm",
      schema_version: 1,
    });
  }
}

describe("a sign-in in a learned skill (issue #35)", () => {
  it("compiles to a 'Signed in as {{username}}' checkpoint with a secret password input", async () => {
    const spec = (await agent.call("GET", `/api/abilities/${abilityId}/run-spec`)).body;
    expect(spec.inputs.map((input: { name: string; secret: boolean }) => [input.name, input.secret])).toEqual([
      ["username", false],
      ["password", true],
      ["title", false],
    ]);
    expect(spec.checkpoints[0]).toMatchObject({ checkpoint_id: "cp-01", goal: "Signed in as {{username}}", verified_by: "page" });
  });

  describe("runs in one managed Chromium session", () => {
    it("is validated by a rehearsal in a fresh profile that signs in with the test values (a dry run: the note is not saved)", () => {
      expect(validation?.status, JSON.stringify(validation?.body)).toBe(200);
      expect(validation?.body.validation_run.overall_result).toBe("partial");
      expect(validationSteps.find((step) => step.test_case_id === "checkpoint:cp-01")).toMatchObject({
        result: "passed",
        details: expect.stringMatching(/^signed in: link "Log out", no password field/),
      });
      expect(validationSteps.find((step) => step.test_case_id === "rehearsal:s3")).toMatchObject({ result: "passed" });
      expect(signInsBeforeRuns).toBe(1);
      expect(site.notes()).toEqual([]);
    });

    it("signs in when not signed in, then skips the sign-in when the session is still valid, proving the checkpoint both times", async () => {
      const first = await run({ username: "alice", password: PASSWORD, title: "First note from a run" });
      expect(first.state, JSON.stringify(first.failure)).toBe("succeeded");
      expect(first.checkpoints.every((checkpoint) => checkpoint.status === "reached")).toBe(true);
      expect(first.checkpoints[0]).toMatchObject({ goal: "Signed in as {{username}}", status: "reached" });
      expect(first.checkpoints[0]?.evidence).toMatch(/^signed in: link "Log out", no password field; the page shows the name given for \{\{username\}\}/);
      expect(site.signIns()).toBe(signInsBeforeRuns + 1);
      expect(site.notes()).toEqual([{ owner: "alice", title: "First note from a run" }]);

      const second = await run({ username: "alice", password: PASSWORD, title: "Second note, already signed in" });
      expect(second.state, JSON.stringify(second.failure)).toBe("succeeded");
      // No second sign-in reached the app: the steps were skipped, and the receipts say why.
      expect(site.signIns()).toBe(signInsBeforeRuns + 1);
      const skipped = second.steps.filter((step) => step.result === "skipped");
      expect(skipped.map((step) => step.label)).toEqual([
        expect.stringContaining("{{username}}"),
        expect.stringContaining("{{password}}"),
        expect.stringContaining("Log in"),
      ]);
      for (const step of skipped)
        expect(step.details).toMatch(/^not needed: the browser is already signed in \(link "Log out", no password field\), so the sign-in steps were skipped/);
      expect(skipped.at(-1)?.details).toMatch(/opened the page the sign-in led to, http:\/\/127\.0\.0\.1:\d+\/home/);
      expect(second.checkpoints[0]).toMatchObject({
        status: "reached",
        evidence: expect.stringMatching(/^already signed in, so its steps were skipped; signed in: link "Log out"/),
      });
      expect(second.checkpoints.every((checkpoint) => checkpoint.status === "reached")).toBe(true);
      expect(site.notes()).toEqual([
        { owner: "alice", title: "First note from a run" },
        { owner: "alice", title: "Second note, already signed in" },
      ]);

      // The password reached the app (that is the task) and nothing of the agent's.
      await agent.app.learning.runs.store.settle();
      const files = (await readdir(agent.root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
      expect(files.some((entry) => entry.name === path.basename(MemoryPaths.checkpointReceipts))).toBe(true);
      for (const entry of files) {
        const text = (await readFile(path.join(entry.parentPath, entry.name))).toString("latin1");
        expect(text, entry.name).not.toContain(PASSWORD);
      }
      expect(agent.logs.join("\n")).not.toContain(PASSWORD);
    }, 90_000);

    it("in the person's own tab, already signed in, does the task without signing in", async () => {
      if (browser === undefined) throw new Error("no browser");
      const signInsBefore = site.signIns();
      // The person's tab (a browser context of its own): signed in by the person, on a page of the app.
      const context = await browser.createBrowserContext();
      const tab = await context.newPage();
      await tab.goto(`${site.origin}/login`);
      await tab.type("#user", "alice");
      await tab.type("#password", PASSWORD);
      await Promise.all([tab.waitForNavigation(), tab.click("#login")]);
      const signedInByPerson = site.signIns();
      const skill = path.join(agent.root, MemoryPaths.installedSkill(abilityId.replace("learned.", "")));
      const flow = JSON.parse(await readFile(path.join(skill, "tests/flow.recorder.json"), "utf8")) as RecorderFlow;
      const checkpoints = JSON.parse(await readFile(path.join(skill, "tests/checkpoints.json"), "utf8")) as ExecutionCheckpoint[];
      const asked: string[] = [];
      const result = await execute({
        flow,
        checkpoints,
        parameters: [
          { name: "username", type_hint: "text" },
          { name: "password", type_hint: "secret" },
          { name: "title", type_hint: "text" },
        ],
        values: { username: "alice", password: PASSWORD, title: "Note from the person's tab" },
        policy: TestPolicySchema.parse({ policy_id: crypto.randomUUID(), mode: "live_read_safe_write", allowed_domains: ["127.0.0.1"], schema_version: 1 }),
        browser: async () => ({ where: "user_tab", browser: browser as Browser, page: tab, release: async () => undefined }),
        confirm: async (request) => {
          asked.push(request.step_label);
          return true;
        },
      });
      await context.close();
      expect(result.overall, JSON.stringify(result.steps)).toBe("passed");
      expect(site.signIns()).toBe(signedInByPerson);
      expect(signedInByPerson).toBe(signInsBefore + 1);
      expect(result.steps.filter((step) => step.result === "skipped").map((step) => step.test_case_id)).toEqual(["step:s1", "step:s2", "step:s3"]);
      expect(result.checkpoints?.[0]).toMatchObject({
        goal: "Signed in as {{username}}",
        status: "reached",
        evidence: expect.stringMatching(/^already signed in, so its steps were skipped/),
      });
      expect(asked).toEqual([expect.stringContaining("Save note")]);
      expect(JSON.stringify(result)).not.toContain(PASSWORD);
      expect(site.notes().at(-1)).toEqual({ owner: "alice", title: "Note from the person's tab" });
    }, 60_000);

    it("signs in again when the session has expired: the same cookie no longer shows the browser signed in", async () => {
      const before = site.signIns();
      site.expireSessions();
      const again = await run({ username: "alice", password: PASSWORD, title: "Third note, after the session ended" });
      expect(again.state, JSON.stringify(again.failure)).toBe("succeeded");
      expect(site.signIns()).toBe(before + 1);
      expect(again.steps.some((step) => step.result === "skipped")).toBe(false);
      expect(again.checkpoints[0]).toMatchObject({ status: "reached", evidence: expect.stringMatching(/^signed in: /) });
      expect(site.notes().at(-1)).toEqual({ owner: "alice", title: "Third note, after the session ended" });
    }, 60_000);
  });
});

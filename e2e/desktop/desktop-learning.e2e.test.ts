import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { openTerminal, SHELL_INTEGRATION, type Terminal } from "./fixtures/terminal";
import { ARTIFACTS_DIR, launchExtensionBrowser, pairPanel, saveScreenshot, type ExtensionBrowser } from "../test-support/extension-browser";

/**
 * Issue #18 "Done when", in real Chromium with the built extension and a real agent: a person
 * teaches a terminal routine from the side panel. They choose "This computer", see the shell's
 * adapter healthy, start; in a real bash that sources the reference adapter's shell integration
 * they run a release routine, one command of which carries a password (`curl -u deploy:<canary>`);
 * the commands show in the panel's live timeline; they stop, answer the questions, review the
 * proposal (inputs as parameters, checkpoints on exit codes and the files that appeared), validate
 * it (the panel says that no command was rehearsed), install it and find it in Skills. The
 * password never reaches the agent's files, its log, or the panel; nothing at all is reported
 * while no session captures.
 */

const exec = promisify(execFile);
/** The password of the routine's curl call: short and word-like, so only the command's shape can tell it is a secret. */
const CANARY = "Zq6-pw-canary";
/** Typed before any session exists, in the same terminal: never reported. */
const BEFORE_CANARY = "Zq6-before-session";

let root: string;
let workspace: string;
let home: string;
let work: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess;
let chromium: ExtensionBrowser;
let server: http.Server;
let serverUrl: string;
let panel: Page;
let token: string;
let terminal: Terminal;

/** The staging server the routine checks: it answers only with the right password. */
async function startStagingServer(): Promise<string> {
  server = http.createServer((request, response) => {
    const expected = `Basic ${Buffer.from(`deploy:${CANARY}`).toString("base64")}`;
    if (request.headers.authorization !== expected) {
      response.writeHead(401, { "content-type": "text/plain" }).end("unauthorized\n");
      return;
    }
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "ready", release: "2026-11" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function api<T = Record<string, any>>(method: string, route: string): Promise<{ status: number; body: T }> {
  const response = await fetch(`${agent.url}${route}`, { method, headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as T };
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

/** Everything the panel shows or holds in its DOM: text, attributes, and form values. */
async function panelDom(page: Page): Promise<string> {
  return page.evaluate(() => {
    const values = [...document.querySelectorAll("input, textarea, select")].map((field) => (field as HTMLInputElement).value);
    return `${document.documentElement.outerHTML}\n${document.body.innerText}\n${values.join("\n")}`;
  });
}

async function assertNoCanary(where: string): Promise<void> {
  const dom = await panelDom(panel);
  expect(dom, `the password in the panel (${where})`).not.toContain(CANARY);
  expect(dom, `the pre-session command in the panel (${where})`).not.toContain(BEFORE_CANARY);
}

async function waitForText(selector: string, text: string, timeout = 20_000): Promise<void> {
  await panel.waitForFunction(
    (sel, wanted) => [...document.querySelectorAll(sel)].some((element) => (element.textContent ?? "").includes(wanted)),
    { timeout },
    selector,
    text,
  );
}

async function waitForSessionState(states: string[], timeout = 20_000): Promise<void> {
  await panel.waitForFunction(
    (wanted) => wanted.includes(document.querySelector("[data-session-state]")?.getAttribute("data-session-state") ?? ""),
    { timeout },
    states,
  );
}

const text = (selector: string) => panel.$eval(selector, (element) => (element as HTMLElement).innerText);

/** The drawer is fixed over the page: shot at the viewport, made tall enough for all of it. */
async function drawerShot(name: string, height: number): Promise<void> {
  const viewport = panel.viewport() ?? { width: 360, height: 720 };
  await panel.setViewport({ ...viewport, height });
  await panel.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}.png`) as `${string}.png` });
  await panel.setViewport(viewport);
}

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot());
  workspace = await mkdtemp(path.join(tmpdir(), "elnor-desktop-ws-"));
  home = await mkdtemp(path.join(tmpdir(), "elnor-desktop-home-"));
  agent = await startAgentProcess(root, { OPENCLAW_WORKSPACE: workspace });
  token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  serverUrl = await startStagingServer();
  // The project the routine works in: a git repository with a release folder.
  work = path.join(home, "projects");
  const shop = path.join(work, "shop");
  await mkdir(path.join(shop, "release"), { recursive: true });
  await writeFile(path.join(shop, "release", "notes.md"), "# Release 2026-11\n");
  const git = (...args: string[]) => exec("git", ["-C", shop, "-c", "user.name=Ann", "-c", "user.email=ann@example.com", ...args]);
  await git("init", "-q", "-b", "main");
  await git("add", ".");
  await git("commit", "-q", "-m", "first");
  terminal = openTerminal("bash", { cwd: work, home, env: { ELNOR_AGENT_URL: agent.url, ELNOR_TOKEN: token, HISTFILE: path.join(home, ".bash_history") } });
  chromium = await launchExtensionBrowser();
  panel = await chromium.openSidePanel();
  await pairPanel(panel, agent.url, token);
}, 90_000);

afterAll(async () => {
  await terminal?.close();
  await chromium?.close();
  await agent?.stop();
  server?.close();
  await cleanup?.();
  for (const dir of [workspace, home]) if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe("teaching a terminal routine from the side panel", () => {
  it("reports nothing from a terminal with the shell integration while no session captures", async () => {
    terminal.type(`source ${SHELL_INTEGRATION}`);
    terminal.type(`curl -s -u deploy:${BEFORE_CANARY} ${serverUrl}/health`);
    terminal.type("ls");
    await terminal.settle();
    // The terminal said "I am here" (that is all it sends without a session).
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { body } = await api<{ adapters: Array<{ adapter_id: string; healthy: boolean }> }>("GET", "/api/observation/adapters");
      if (body.adapters.some((adapter) => adapter.adapter_id === "reference-desktop-cli:terminal_command" && adapter.healthy)) break;
      if (Date.now() > deadline) throw new Error(`the shell's adapter never reported in: ${JSON.stringify(body)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // The reporter runs in the background after each command: give it time to do whatever it would.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await api("GET", "/api/learn/runtime/current")).status).toBe(404);
    const written = await filesUnder(root);
    expect(written.filter((file) => file.includes(`${path.sep}observations${path.sep}`))).toEqual([]);
    for (const file of written) {
      const content = await readFile(file, "utf8");
      expect(content, file).not.toContain(BEFORE_CANARY);
      expect(content, file).not.toContain("curl");
    }
    expect(agent.output()).not.toContain(BEFORE_CANARY);
  }, 60_000);

  it("sets up 'This computer': the terminal's adapter healthy, how to start one, and no site needed", async () => {
    await panel.locator('[data-card="Demonstrating Skill"] button').click();
    await panel.locator('input[name="watch-this-computer"]').click();
    await panel.waitForSelector('[data-desktop-adapters="healthy"] [data-adapter-id="reference-desktop-cli:terminal_command"][data-adapter-healthy="true"]', {
      timeout: 20_000,
    });
    const help = await text("[data-desktop-adapters]");
    expect(help).toContain("healthy");
    expect(help).toContain("shell-integration.sh");
    // Opened as a tab, the panel has no current site: the routine is watched on this computer only.
    expect(await panel.$$(".site")).toHaveLength(0);
    await assertNoCanary("set-up");
    await saveScreenshot(panel, "desktop-e2e-setup");

    await panel.locator('button[name="start"]').click();
    await waitForSessionState(["armed", "capturing"]);
    const banner = await text("[data-observation-banner]");
    expect(banner).toContain("this computer");
  });

  it("shows each command run in the terminal in the live timeline, the password masked", async () => {
    terminal.type("cd shop");
    // A slip, as in any real terminal: shown as failed, left out of the skill.
    terminal.type("gti checkout -b release/2026-11");
    terminal.type("git checkout -b release/2026-11");
    terminal.type(`curl -s -u deploy:${CANARY} ${serverUrl}/health -o status.json`);
    terminal.type("tar -czf release-2026-11.tar.gz release");
    await terminal.settle();
    // The routine really ran in the terminal.
    expect(JSON.parse(await readFile(path.join(work, "shop", "status.json"), "utf8"))).toEqual({ status: "ready", release: "2026-11" });
    expect(terminal.output()).toContain("Switched to a new branch 'release/2026-11'");

    await panel.locator("#learn-tab-active").click();
    await waitForSessionState(["capturing"]);
    await panel.waitForFunction(() => document.querySelectorAll("[data-event-id]").length >= 5, { timeout: 30_000 });
    const steps = await panel.$$eval("[data-event-id]", (elements) => elements.map((element) => (element as HTMLElement).innerText));
    const joined = steps.join("\n");
    expect(joined).toContain("git checkout -b release/2026-11");
    expect(joined).toContain("tar -czf release-2026-11.tar.gz release");
    expect(joined).toMatch(/curl -s -u deploy:«masked»/);
    expect(joined).toContain("Terminal (bash)");
    // In the order they ran, each with how it ended; the slip as failed.
    expect(steps.map((step) => /Run '(\S+)/.exec(step)?.[1])).toEqual(["cd", "gti", "git", "curl", "tar"]);
    expect(await panel.$$eval("[data-exit-outcome]", (elements) => elements.map((element) => element.textContent))).toEqual([
      "exited with code 0",
      "failed: exited with code 127",
      "exited with code 0",
      "exited with code 0",
      "exited with code 0",
    ]);
    expect(await text("[data-watches-computer]")).toContain("terminals");
    await assertNoCanary("timeline");
    await saveScreenshot(panel, "desktop-e2e-timeline");
  }, 60_000);

  it("stops, asks what the routine is for, and proposes a skill with parameters and checkpoints on exit codes and files", async () => {
    await panel.locator('button[name="session-stop"]').click();
    await waitForSessionState(["stopped"]);
    // After Stop, the terminal reports nothing more.
    const sessionId = (await api<{ learn_session_id: string }>("GET", "/api/learn/runtime/current")).body.learn_session_id;
    const recorded = async () => (await api<{ events: unknown[] }>("GET", `/api/learn/sessions/${sessionId}/observations`)).body.events;
    const before = (await recorded()).length;
    terminal.type("echo after-stop");
    await terminal.settle();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await recorded()).toHaveLength(before);
    expect(JSON.stringify(await recorded())).not.toContain("after-stop");
    await panel.locator('button[name="generate-proposal"]').click();
    await waitForSessionState(["awaiting_questions"], 30_000);
    await panel.waitForSelector("[data-questions] textarea[name='answer']");
    await waitForText("[data-questions] label", "What is this ability for?");
    for (let guard = 0; guard < 8 && (await panel.$("[data-questions] textarea[name='answer']")) !== null; guard += 1) {
      const question = await panel.$eval("[data-questions] label", (label) => ({
        text: label.textContent ?? "",
        required: label.querySelector(".required") !== null,
      }));
      if (question.required) {
        await panel
          .locator("[data-questions] textarea[name='answer']")
          .fill(question.text.includes("What is this ability for") ? "Prepare a release of the shop" : "Each command exits with code 0");
      }
      if (await panel.$("button[name='send-answers']")) {
        await panel.locator("button[name='send-answers']").click();
        break;
      }
      await panel.locator("button[name='next-question']").click();
      await panel.waitForFunction((previous) => document.querySelector("[data-questions] label")?.textContent !== previous, {}, question.text);
    }
    await panel.waitForSelector("[data-proposal-drawer] pre.markdown", { timeout: 30_000 }).catch(async (error: unknown) => {
      await saveScreenshot(panel, "desktop-e2e-no-proposal");
      throw new Error(`the proposal never opened; the panel showed: ${(await text("body")).replace(/\s+/g, " ").slice(0, 1500)}`, { cause: error });
    });
    const markdown = await text("[data-proposal-drawer] pre.markdown");
    // The inputs a person gives each time: the branch, the server's address, the password, the files.
    expect(markdown).toContain("git checkout -b {{branch}}");
    // (SKILL.md escapes the backticks of a command inside its own markdown.)
    expect(markdown).toMatch(
      /curl -s -u deploy:\{\{password\}\} \{\{url\}\} -o \{\{(path[_0-9]*)\}\}\\?` ran and exited with code 0, and \\?`\{\{\1\}\}\\?` exists/,
    );
    expect(markdown).toMatch(/`\{\{password\}\}` — password \(secret\)/);
    expect(markdown).toMatch(/tar -czf \{\{(path[_0-9]*)\}\} release\\?` ran and exited with code 0, and \\?`\{\{\1\}\}\\?` exists/);
    expect(markdown).toMatch(/cd \{\{folder\}\}\\?` ran and exited with code 0/);
    expect(markdown).not.toContain("«masked»");
    expect(markdown).not.toContain("gti");
    // Who confirms each checkpoint, and why, in terms of a terminal.
    const drawer = await text("[data-proposal-drawer]");
    expect(drawer).toContain("validation runs no command");
    expect(drawer).not.toContain("Nothing on the page changed");
    const statuses = await panel.$$eval("[data-checkpoint-status]", (elements) => elements.length);
    expect(statuses).toBeGreaterThanOrEqual(3);
    await assertNoCanary("proposal");
    await drawerShot("desktop-e2e-proposal", 2200);
  }, 60_000);

  it("validates without running any command, and says so", async () => {
    const validate = '[data-proposal-drawer] button[name="validate"]:not([disabled])';
    const form = '[data-proposal-drawer] form[aria-label="Validate the proposal"]';
    for (let attempt = 0; ; attempt += 1) {
      try {
        await (await panel.waitForSelector(validate))!.click();
        await panel.waitForSelector(form, { timeout: 5_000 });
        break;
      } catch (error) {
        if (attempt >= 6) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    const intro = await text(form);
    expect(intro).toContain("No command is run");
    // Nothing will run, so no test values are asked.
    expect(await panel.$$(`${form} input[name^="test-"]`)).toHaveLength(0);
    await panel.locator('[data-proposal-drawer] button[name="run-validation"]').click();
    await panel.waitForSelector("[data-proposal-drawer] [data-validation-result]", { timeout: 120_000 });
    const result = await panel.$eval("[data-proposal-drawer] [data-validation-result]", (element) => element.getAttribute("data-validation-result"));
    const shown = await text("[data-proposal-drawer] [data-validation-result]");
    // Nothing was rehearsed: the run is partial, and each command's checkpoint is left to the person.
    expect(result, shown).toBe("partial");
    expect(shown).toContain("confirm by hand");
    expect(shown).toContain("nothing in this flow acts in a browser");
    // A terminal routine has no viewport: the report does not list one as "not replayed".
    expect(shown).not.toMatch(/viewport/i);
    await assertNoCanary("validation");
    // The run's own steps, whole: the checks made and the checkpoints left to the person.
    const run = await panel.$("[data-proposal-drawer] [data-validation-result]");
    await panel.setViewport({ width: 360, height: 4000 });
    await run!.screenshot({ path: path.join(ARTIFACTS_DIR, "desktop-e2e-validated.png") as `${string}.png` });
    await panel.setViewport({ width: 360, height: 720 });
  }, 150_000);

  it("installs it, and the ability appears in Skills", async () => {
    await panel.locator('[data-proposal-drawer] button[name="install"]').click();
    await waitForText("[data-review-message]", "Installed for you only", 60_000);
    await panel.keyboard.press("Escape");
    await panel.waitForSelector("[data-proposal-drawer]", { hidden: true });
    await panel.locator('nav[aria-label="Abilities"] button::-p-text(Skills)').click();
    await panel.waitForSelector('[data-skills-status="ready"]');
    await waitForText("[data-ability-id]", "release", 20_000);
    await assertNoCanary("Skills");
    await saveScreenshot(panel, "desktop-e2e-skills");
    // Its card says the validation was only partly checked, never that it passed.
    const line = await panel.$eval("[data-ability-id] [data-last-validation]", (element) => ({
      tone: element.getAttribute("data-last-validation"),
      text: (element as HTMLElement).innerText,
    }));
    expect(line.tone).toBe("partial");
    expect(line.text).toMatch(/^v0\.1\.0 · validated \S.*, partly checked \(some checks could not run\)$/);
    await (await panel.$("[data-ability-id]"))!.screenshot({ path: path.join(ARTIFACTS_DIR, "desktop-e2e-skills-card.png") as `${string}.png` });
    const installed = await filesUnder(path.join(root, "system/learning/installed"));
    const skill = installed.find((file) => file.endsWith("SKILL.md"));
    expect(skill).toBeDefined();
    expect(await readFile(skill!, "utf8")).toContain("git checkout -b {{branch}}");
  }, 90_000);

  it("kept the password out of every file of the agent, its log, the assistant's workspace and the panel", async () => {
    for (const file of [...(await filesUnder(root)), ...(await filesUnder(workspace))]) {
      const content = await readFile(file, "utf8");
      expect(content, file).not.toContain(CANARY);
      expect(content, file).not.toContain(BEFORE_CANARY);
    }
    expect(agent.output()).not.toContain(CANARY);
    expect(agent.output()).not.toContain(BEFORE_CANARY);
    await assertNoCanary("the end");
  });
});

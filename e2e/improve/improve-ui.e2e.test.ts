import { createHash, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import type { AgentCall } from "../../agent/test-support/ready-proposal";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { memoryText } from "../../agent/test-support/memory-text";
import { canonicalJson, type PageSnapshot } from "../../shared/observation/page-snapshot";
import { ARTIFACTS_DIR, launchExtensionBrowser, pairPanel, saveScreenshot, type ExtensionBrowser } from "../test-support/extension-browser";
import {
  agentCallOf,
  answerPanelQuestions,
  drawerShot,
  endJourney,
  expectCleanPanel,
  openValidateForm,
  waitForSessionState,
  waitForText,
} from "../test-support/panel-flow";

/**
 * The "done when" for Improving Existing Skill (issue #16), in real Chromium with the built
 * extension and a real agent. A notes app had a visible "Save" button; a "save a note" skill was
 * learned on it. The app was redesigned the way real editors are: "Save note" now sits in a "More"
 * menu that opens on hover (or a click), and a note takes tags. From the Learn New Ability card:
 * choose the installed skill, demonstrate the new routine, Stop, answer, review the proposal as a
 * delta against the installed skill, Validate with test values (passed), Install; Skills lists it
 * and its last validation passed. The values typed while demonstrating reach nothing.
 */

const CANARY = { title: "Zq9-improve-canary title", tags: "zq9tagcanary" } as const;

/** The notes app, before (`redesigned` false) and after the redesign. Saving never echoes the note. */
function notesPage(redesigned: boolean): string {
  const save = redesigned
    ? `<div class="more" id="more-wrap"><button type="button" id="more" aria-haspopup="menu">More</button>
<div class="menu" role="menu"><button type="button" role="menuitem" id="menu-save">Save note</button><button type="button" role="menuitem" id="menu-print">Print</button></div></div>`
    : '<button type="button" id="save">Save</button>';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Notes — Fixture Notes</title>
<style>.menu{display:none;position:absolute;background:#fff;border:1px solid #999}.more{position:relative;display:inline-block}.more:hover .menu,.more.open .menu{display:grid}</style></head><body>
<main><h1>New note</h1>
<form id="note" aria-label="New note" onsubmit="return false">
<label for="title">Title</label> <input id="title" name="title" type="text">
${redesigned ? '<label for="tags">Tags</label> <input id="tags" name="tags" type="text">' : ""}
${save}
</form>
<p role="status" id="result"></p></main>
<script>
const saved = () => { document.getElementById("result").textContent = "Note saved"; };
document.getElementById("save")?.addEventListener("click", saved);
document.getElementById("menu-save")?.addEventListener("click", () => { saved(); document.getElementById("more-wrap").classList.remove("open"); });
document.getElementById("more")?.addEventListener("click", () => document.getElementById("more-wrap").classList.toggle("open"));
</script></body></html>`;
}

let root: string;
let workspace: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess;
let call: AgentCall;
let chromium: ExtensionBrowser;
let fixture: http.Server;
let origin: string;
let redesigned = false;
let notes: Page;
let panel: Page;
let abilityId: string;
let proposalId: string;

async function startNotesSite(): Promise<string> {
  fixture = http.createServer((request, response) => {
    if (new URL(request.url ?? "/", "http://x").pathname === "/notes") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(notesPage(redesigned));
    } else response.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  await new Promise<void>((resolve) => fixture.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(fixture.address() as AddressInfo).port}`;
}

const sha = (page: PageSnapshot) => createHash("sha256").update(canonicalJson(page)).digest("hex");

/**
 * The skill as first learned on the old app, through the routes the panel uses (values masked at
 * the source, as the extension reports them): title typed, "Save" clicked, "Note saved" shown.
 */
async function installSaveNoteSkill(): Promise<string> {
  const sessionId = (await call("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill" })).body.session.learn_session_id as string;
  await call("POST", `/api/learn/sessions/${sessionId}/start`);
  await call("POST", `/api/learn/sessions/${sessionId}/mark-goal`, { goal_description: "Save a note" });
  const page = (status: string[]): PageSnapshot => ({
    url: `${origin}/notes`,
    title: "Notes — Fixture Notes",
    headings: [{ level: 1, text: "New note" }],
    landmarks: [],
    dialogs: [],
    forms: [],
    buttons: ["Save"],
    links: [],
    status_messages: status,
    schema_version: 1,
  });
  const before = page([]);
  const after = page(["Note saved"]);
  const base = { learn_session_id: sessionId, adapter_kind: "browser_dom", app_family: "browser", redaction_mode: "mask_text", schema_version: 1 };
  const detail = { page_url: `${origin}/notes`, page_title: "Notes — Fixture Notes" };
  const at = (offset: number) => new Date(Date.now() + offset).toISOString();
  const events = [
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Fill 'Title'",
      created_at: at(0),
      browser_detail: {
        ...detail,
        target_name: "Title",
        target_role: "textbox",
        target_tag: "input",
        input_type: "text",
        selectors: [["#title"], ['aria/Title[role="textbox"]']],
        dom_event_kind: "change",
        masked_field: { masked: true, length_class: "short" },
      },
    },
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Click 'Save'",
      created_at: at(1),
      caused_state_change: true,
      before_state_ref: `snapshot:${sha(before)}`,
      after_state_ref: `snapshot:${sha(after)}`,
      browser_detail: {
        ...detail,
        target_name: "Save",
        target_role: "button",
        target_tag: "button",
        selectors: [["#save"], ['aria/Save[role="button"]']],
        dom_event_kind: "click",
      },
    },
  ];
  const posted = await call("POST", "/api/observations/events", {
    batch_id: randomUUID(),
    events,
    snapshots: [before, after].map((snapshot) => ({ sha256: sha(snapshot), learn_session_id: sessionId, snapshot })),
    schema_version: 1,
  });
  expect(posted.status, JSON.stringify(posted.body)).toBeLessThan(300);
  await call("POST", `/api/learn/sessions/${sessionId}/stop`);
  const draftId = (await call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`)).body.proposal_id as string;
  if ((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state === "awaiting_questions") {
    const questions = (await call("GET", `/api/learn/proposals/${draftId}/detail`)).body.questions as Array<{ question_id: string; required: boolean }>;
    await call("POST", `/api/learn/sessions/${sessionId}/answer-questions`, {
      answers: questions
        .filter((question) => question.required)
        .map((question) => ({ question_id: question.question_id, answer_text: 'The page says "Note saved"' })),
    });
  }
  const installed = await call("POST", `/api/learn/proposals/${draftId}/install`, { install_lane: "experimental_private" });
  if (installed.status !== 200) throw new Error(`install failed: ${JSON.stringify(installed.body)}`);
  return installed.body.ability_id as string;
}

/** Everything the panel shows or holds: its markup, its text and its form values. */
const IMPROVE_CLEAN = { canary: "zq9", fields: "input, textarea, select", withText: true };

beforeAll(async () => {
  ({ root, cleanup } = await makeTempMemoryRoot("elnor-improve-ui-"));
  workspace = await mkdtemp(path.join(tmpdir(), "elnor-improve-ui-ws-"));
  origin = await startNotesSite();
  agent = await startAgentProcess(root, { OPENCLAW_WORKSPACE: workspace });
  call = await agentCallOf(agent, root);
  abilityId = await installSaveNoteSkill();
  // The redesign: Save moved into the hover menu, and notes take tags.
  redesigned = true;
  chromium = await launchExtensionBrowser();
  notes = await chromium.browser.newPage();
  await notes.setViewport({ width: 1000, height: 800 });
  await notes.goto(`${origin}/notes`);
  panel = await chromium.openSidePanel();
  await pairPanel(panel, agent.url, (await readFile(path.join(root, "system/agent/token"), "utf8")).trim());
  await panel.setViewport({ width: 400, height: 900 });
}, 90_000);

afterAll(() => endJourney({ chromium, agent, sites: [fixture], cleanup, folders: [workspace] }));

describe("Improving Existing Skill from its card to an installed, validated new version (issue #16)", () => {
  it("sets up the improvement from the card: the installed skill is offered and chosen, the tab's site prefilled", async () => {
    await panel.waitForFunction(() => !(document.querySelector('[data-card="Improving Existing Skill"] button') as HTMLButtonElement | null)?.disabled, {
      timeout: 15_000,
    });
    await panel.locator('[data-card="Improving Existing Skill"] button').click();
    await panel.waitForSelector('input[name="target-skill"]');
    // The picker offers the installed skills (the agent's Skills), this one among them — also when
    // the card was opened before the panel had read what the agent offers.
    await panel.waitForFunction(
      (id) => [...document.querySelectorAll("datalist option")].some((option) => (option as HTMLOptionElement).value === id),
      { timeout: 15_000 },
      abilityId,
    );
    await panel.locator('input[name="target-skill"]').fill(abilityId);
    await waitForText(panel, ".site", origin);
    // The rehearsal may press Save on this fixture (its only safe domain).
    await panel.locator('input[name="dry-run"]').click();
    await expectCleanPanel(panel, "improve set-up", IMPROVE_CLEAN);
    await saveScreenshot(panel, "improve-setup");
    await panel.locator('button[name="start"]').click();
    expect(["armed", "capturing"]).toContain(await waitForSessionState(panel, ["armed", "capturing"]));
  }, 60_000);

  it("records the improved routine: title and tags typed (masked), Save note from the More menu", async () => {
    await notes.bringToFront();
    await notes.type("#title", CANARY.title);
    await notes.type("#tags", CANARY.tags);
    await notes.hover("#more");
    await notes.click("#more");
    await notes.waitForSelector("#menu-save", { visible: true });
    await notes.click("#menu-save");
    await notes.waitForFunction(() => document.getElementById("result")?.textContent === "Note saved");
    await panel.bringToFront();
    await waitForSessionState(panel, ["capturing"]);
    await panel.waitForFunction(() => document.querySelectorAll("[data-event-id]").length >= 4, { timeout: 20_000 });
    await panel.waitForFunction(() => document.querySelectorAll("[data-masked]").length >= 2, { timeout: 20_000 });
    await expectCleanPanel(panel, "improve capturing", IMPROVE_CLEAN);
  }, 60_000);

  it("stops, asks its questions, and reviews the proposal as changes to the installed skill", async () => {
    await panel.locator('button[name="session-stop"]').click();
    await waitForSessionState(panel, ["stopped"]);
    await panel.locator('button[name="generate-proposal"]').click();
    await answerPanelQuestions(panel, (question) =>
      question.includes("What is this ability for") ? "Save a note with its tags" : 'The page says "Note saved"',
    );
    await panel.waitForSelector("[data-proposal-drawer]", { timeout: 30_000 });
    await panel.waitForSelector("[data-proposal-drawer] [data-skill-delta]", { timeout: 20_000 });
    await waitForText(panel, "[data-proposal-drawer] [data-skill-delta] h3", "Changes to");
    // The new routine's tags are a parameter the installed skill did not have.
    await waitForText(panel, '[data-proposal-drawer] [data-delta-group="parameters"] [data-change="added"]', "tags", 20_000);
    const drawer = await panel.$eval("[data-proposal-drawer]", (element) => (element as HTMLElement).innerText);
    expect(drawer).toContain("The installed skill stays exactly as it is until you install this proposal");
    expect(drawer).toMatch(/Version 0\.1\.0 → 0\.2\.0/);
    // The old "Save" checkpoint is changed; the new routine's "Save note" is its own.
    await waitForText(panel, '[data-proposal-drawer] [data-delta-group="checkpoints"] [data-change="changed"]', "Save", 20_000);
    await expectCleanPanel(panel, "improve proposal review", IMPROVE_CLEAN);
    await drawerShot(panel, "improve-delta-review", 2400);
    const history = (await call("GET", "/api/learn/history?page=1&page_size=10")).body.items as Array<{ entry_mode: string; proposal_id?: string }>;
    proposalId = history.find((item) => item.entry_mode === "improving_existing_skill")?.proposal_id as string;
    expect(proposalId, JSON.stringify(history)).toBeTruthy();
  }, 90_000);

  it("validates it with test values (passed) and installs it over the old version", async () => {
    const testInput = '[data-proposal-drawer] input[name^="test-"]';
    await openValidateForm(panel, { buttonTimeout: 20_000 });
    const inputs = await panel.$$eval(testInput, (elements) => elements.map((element) => element.getAttribute("name") ?? ""));
    expect(inputs).toEqual(expect.arrayContaining(["test-title", "test-tags"]));
    for (const name of inputs) await panel.locator(`[data-proposal-drawer] input[name="${name}"]`).fill(`Test ${name.slice(5)} value`);
    await panel.locator('[data-proposal-drawer] button[name="run-validation"]').click();
    await panel.waitForSelector("[data-proposal-drawer] [data-validation-result]", { timeout: 60_000 });
    const result = await panel.$eval("[data-proposal-drawer] [data-validation-result]", (element) => element.getAttribute("data-validation-result"));
    const runText = await panel.$eval("[data-proposal-drawer] [data-validation-result]", (element) => (element as HTMLElement).innerText);
    expect(result, runText).toBe("passed");
    // The rehearsal went the new way: through the More menu, on the redesigned page.
    expect(await panel.$eval("[data-proposal-drawer]", (element) => (element as HTMLElement).innerText)).toMatch(/Click "Save note" \(menuitem\)/);
    await panel.locator('[data-proposal-drawer] button[name="install"]').click();
    await waitForText(panel, "[data-review-message]", "Installed for you only", 60_000);
    await expectCleanPanel(panel, "improve installed", IMPROVE_CLEAN);
    await drawerShot(panel, "improve-installed", 2400);
    await panel.keyboard.press("Escape");
    await panel.waitForSelector("[data-proposal-drawer]", { hidden: true });
  }, 120_000);

  it("Skills lists the new version of the same skill, and its last validation passed", async () => {
    await panel.locator('nav[aria-label="Abilities"] button::-p-text(Skills)').click();
    await panel.waitForSelector(`[data-ability-id="${abilityId}"]`, { timeout: 15_000 });
    await waitForText(panel, `[data-ability-id="${abilityId}"]`, "Usable now");
    await expectCleanPanel(panel, "Skills", IMPROVE_CLEAN);
    await saveScreenshot(panel, "improve-skills");
    const availability = (await call("GET", "/api/abilities/availability")).body.abilities as Array<{
      ability_id: string;
      last_validated_at?: string;
      last_validation_result?: string;
    }>;
    expect(availability.filter((entry) => entry.ability_id === abilityId)).toHaveLength(1);
    const runs = (await call("GET", `/api/learn/proposals/${proposalId}/validation-runs`)).body.runs as Array<{
      overall_result: string;
      started_at: string;
      completed_at: string;
    }>;
    const lastRun = [...runs].sort((a, b) => a.started_at.localeCompare(b.started_at)).at(-1);
    expect(lastRun?.overall_result).toBe("passed");
    // The card says which version is installed and that its validation (the run before install) passed.
    const entry = (await call("GET", `/api/abilities/${abilityId}/availability`)).body as {
      last_validated_at?: string;
      last_validation_result?: string;
      skill_version?: string;
    };
    expect(entry).toMatchObject({ last_validated_at: lastRun?.completed_at, last_validation_result: "passed", skill_version: "0.2.0" });
    const card = `[data-ability-id="${abilityId}"]`;
    const line = await panel.$eval(`${card} [data-last-validation]`, (element) => ({
      tone: element.getAttribute("data-last-validation"),
      text: (element as HTMLElement).innerText,
      at: element.querySelector("time")?.getAttribute("datetime"),
    }));
    expect(line.tone).toBe("passed");
    expect(line.at).toBe(entry.last_validated_at);
    expect(line.text).toMatch(/^v0\.2\.0 · validated \S.*, passed$/);
    await (await panel.$(card))!.screenshot({ path: path.join(ARTIFACTS_DIR, "improve-skills-card.png") as `${string}.png` });
    // The installed skill is the new version: it takes the tags the old one never did.
    const skillMd = (await call("GET", `/api/abilities/${abilityId}/skill-md`)).body.markdown as string;
    expect(skillMd).toContain('version: "0.2.0"');
    expect(skillMd).toContain("{{tags}}");
  }, 60_000);

  it("kept the values typed while demonstrating out of the agent's memory and log", async () => {
    expect((await readdir(root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).length).toBeGreaterThan(5);
    const text = await memoryText(root);
    for (const canary of Object.values(CANARY)) expect(text).not.toContain(canary);
    expect(agent.output().toLowerCase()).not.toContain("zq9");
  });
});

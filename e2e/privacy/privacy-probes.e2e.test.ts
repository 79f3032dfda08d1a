import { readdir, readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "wxt/browser";
import { startAgentProcess, type AgentProcess } from "../../agent/test-support/agent-process";
import { makeTempMemoryRoot } from "../../agent/test-support/temp-memory";
import { agentApi, sleep, waitUntil } from "../golden/demonstration";
import { waitForRecorder } from "../test-support/content-world";
import { launchExtensionBrowser, pairPanel, type ExtensionBrowser } from "../test-support/extension-browser";

/**
 * Issue #30, with the built extension and a real agent: a demonstration allowed on two sites; a
 * canary typed on site A; then site B's own script (and A's, after the field was cleared) tries
 * every channel of docs/privacy-channels.md with guesses that include the canary. A channel
 * "answers" when anything the page can see differs between the canary and a wrong guess, or when
 * anything answers at all. The figure is 0. What B's page shows of the canary never reaches the
 * agent either (the service worker cuts another site's values).
 */

const SITE_A = `<!doctype html><html><head><title>Bank</title></head><body>
<h1>Sign in to your bank</h1><form>
<label>Display name <input name="display_name" type="text"></label>
<label>Password <input name="password" type="password"></label>
<button type="button" id="go">Continue</button></form>${probeScript()}</body></html>`;

const SITE_B = `<!doctype html><html><head><title>Forum</title></head><body>
<h1 id="heading">Forum</h1><p id="echo"></p>
<button type="button" id="go">Continue</button>${probeScript()}</body></html>`;

/**
 * The page's own probe, in its main world: what the page can see while it asks about `guess`
 * through each channel. Strings the page wrote itself are left out; what is left is the recorder's.
 */
function probeScript(): string {
  return `<script>
window.probe = async (guess) => {
  const answers = { scrub_reply: 0, message_reply: 0, dom_changes: [] };
  const onReply = () => { answers.scrub_reply += 1; };
  document.addEventListener("elnor-coaching-scrubbed", onReply);
  const sent = new Set();
  const onMessage = (event) => { if (!sent.has(event.data)) answers.message_reply += 1; };
  window.addEventListener("message", onMessage);
  // The request Coaching used to answer, the extension's own message shapes, and the guess itself.
  document.dispatchEvent(new CustomEvent("elnor-coaching-scrub", { detail: JSON.stringify({ texts: [guess, "Results for " + guess], urls: [location.origin + "/#/search/" + guess] }) }));
  for (const data of [guess, JSON.stringify({ type: "coaching/read", highlight: null }), JSON.stringify({ type: "capture/get-config" })]) { sent.add(data); window.postMessage(data, "*"); }
  // The page echoes the guess where the recorder reads (heading, title, a button, the address) and acts.
  document.title = guess + " - Forum";
  const echo = document.querySelector("#echo") || document.querySelector("h1");
  echo.textContent = "Results for " + guess;
  document.querySelector("#go").textContent = guess + " ×";
  history.replaceState(null, "", "#/search/" + encodeURIComponent(guess));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const observer = new MutationObserver((records) => {
    for (const record of records) answers.dom_changes.push(record.type + ":" + (record.target.nodeName || "") + ":" + (record.attributeName || ""));
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  document.querySelector("#go").click();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  observer.disconnect();
  document.removeEventListener("elnor-coaching-scrubbed", onReply);
  window.removeEventListener("message", onMessage);
  return answers;
};
</script>`;
}

/** Inside `page.evaluate` on an extension page, the page's own `chrome` global. */
declare const chrome: typeof Browser;

let root: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess;
let chromium: ExtensionBrowser;
let api: ReturnType<typeof agentApi>;
const servers: http.Server[] = [];

async function serve(html: string): Promise<string> {
  const server = http.createServer((_request, response) => response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function memoryText(): Promise<string> {
  const files = (await readdir(root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  return (await Promise.all(files.map((entry) => readFile(path.join(entry.parentPath, entry.name), "utf8").catch(() => "")))).join("\n");
}

type Answers = { scrub_reply: number; message_reply: number; dom_changes: string[] };
const probe = (page: Page, guess: string) => page.evaluate((value) => (window as unknown as { probe(guess: string): Promise<Answers> }).probe(value), guess);

/** The channels whose behaviour told the canary apart from a wrong guess, or answered at all. */
function answering(canary: Answers, wrong: Answers): string[] {
  const channels: string[] = [];
  if (canary.scrub_reply + wrong.scrub_reply > 0) channels.push("the old scrub request was answered");
  if (canary.message_reply + wrong.message_reply > 0) channels.push("a window message was answered");
  if (JSON.stringify(canary.dom_changes) !== JSON.stringify(wrong.dom_changes))
    channels.push(`the DOM changed differently: ${JSON.stringify(canary.dom_changes)} vs ${JSON.stringify(wrong.dom_changes)}`);
  return channels;
}

describe("no page can ask the recorder what was typed (issue #30)", () => {
  beforeAll(async () => {
    ({ root, cleanup } = await makeTempMemoryRoot());
    agent = await startAgentProcess(root);
    const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
    api = agentApi(agent, token);
    chromium = await launchExtensionBrowser();
    const panel = await chromium.openSidePanel();
    await pairPanel(panel, agent.url, token);
  }, 60_000);

  afterAll(async () => {
    await chromium?.close();
    await agent?.stop();
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    await cleanup?.();
  });

  it("finds 0 channels that answer, from the other allowed site and from the first after its field was cleared", async () => {
    const siteA = await serve(SITE_A);
    const siteB = await serve(SITE_B);
    const panel = (await chromium.browser.pages()).find((page) => page.url().includes("sidepanel"))!;
    const origins = [siteA, siteB].map((site) => `${site}/*`);
    expect(await panel.evaluate((requested) => chrome.permissions.request({ origins: requested }), origins)).toBe(true);
    const created = await api<{ session: { learn_session_id: string } }>("POST", "/api/learn/sessions", {
      entry_mode: "demonstrating_skill",
      observation_mode: "outside_agent",
      target_app_whitelist: [siteA, siteB],
    });
    const sessionId = created.session.learn_session_id;
    await api("POST", `/api/learn/sessions/${sessionId}/start`);

    const a = await chromium.browser.newPage();
    await a.goto(`${siteA}/`);
    await waitForRecorder(a);
    const canary = `Zq8Canary${crypto.randomUUID().slice(0, 8)}`;
    await a.type('input[name="display_name"]', canary);
    await a.type('input[name="password"]', `${canary}pw`);
    await a.click("#go");
    await sleep(1_000);

    const b = await chromium.browser.newPage();
    await b.goto(`${siteB}/`);
    await waitForRecorder(b);
    // A first probe takes what changes once (the capture starting, the pill) out of the comparison.
    await probe(b, "warm-up guess");
    const fromB = {
      canary: await probe(b, canary),
      wrong: await probe(b, "Zq8Wrongguess1"),
      password: await probe(b, `${canary}pw`),
      wrong2: await probe(b, "Zq8Wrongguess1pw"),
    };
    expect(answering(fromB.canary, fromB.wrong)).toEqual([]);
    expect(answering(fromB.password, fromB.wrong2)).toEqual([]);

    // Site A, after the person cleared the field.
    await a.bringToFront();
    await a.click('input[name="display_name"]', { clickCount: 3 });
    await a.keyboard.press("Backspace");
    await probe(a, "warm-up guess");
    const fromA = { canary: await probe(a, canary), wrong: await probe(a, "Zq8Wrongguess2") };
    expect(answering(fromA.canary, fromA.wrong)).toEqual([]);

    // What B's page showed of the canary (its heading, title, button, address) reached the agent cut out.
    await waitUntil(
      async () => readFile(path.join(root, "system/learning/observations", sessionId, "events.jsonl"), "utf8").catch(() => ""),
      (text) => text.includes(`${siteB}/`),
      "site B's events at the agent",
    );
    expect((await memoryText()).toLowerCase()).not.toContain(canary.toLowerCase());
    await api("POST", `/api/learn/sessions/${sessionId}/cancel`, { reason: "test over" });
  }, 120_000);
});

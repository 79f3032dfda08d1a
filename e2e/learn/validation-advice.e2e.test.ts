import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentProcess } from "../../agent/test-support/agent-process";
import { readyProposal, type AgentCall } from "../../agent/test-support/ready-proposal";
import type { ExtensionBrowser } from "../test-support/extension-browser";
import { drawerShot, endJourney, openPairedPanel, openValidateForm, startPanelJourney, waitForText } from "../test-support/panel-flow";

/**
 * Issue #35 "a failed validation says what to do", in the side panel against a real agent and a
 * real rehearsal: a skill whose checkpoint names a notice the page never shows fails validation;
 * the drawer names the check in the person's words and offers its fixes; "Mark as confirmed by
 * hand" revises the proposal, and validating again fails nothing (partly checked: that check is
 * left to the person), so the proposal can be installed.
 */

let site: http.Server;
let origin: string;
let cleanup: () => Promise<void>;
let agent: AgentProcess;
let token: string;
let chromium: ExtensionBrowser;
let panel: Page;

/** An invoices page whose Export button does nothing a page shows. */
async function serveInvoices(): Promise<void> {
  site = http.createServer((_request, response) => {
    response
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end('<!doctype html><title>Invoices</title><h1>Invoices</h1><button id="export" type="button">Export</button>');
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
}

/** "Click 'Export'" on that page, compiled into a proposal whose outcome the person named: a notice that never comes. */
async function exportProposal(call: AgentCall): Promise<void> {
  // Under live reads and safe writes on this host, as a person sets it for their own app (a dry run would leave the last click out).
  const { proposalId } = await readyProposal(call, "Export the invoices", { origin, answer: 'The page says "Export ready"', liveTestPolicy: true });
  const detail = (await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body;
  const checkpoints = detail.interpretation.checkpoints as Array<{ success_condition: string; verification?: { by: string } }>;
  // The premise: a checkpoint the rehearsal checks in the page, for a notice the page never shows.
  expect(
    checkpoints.some((checkpoint) => checkpoint.success_condition.includes("Export ready") && checkpoint.verification?.by !== "person"),
    JSON.stringify(checkpoints),
  ).toBe(true);
}

async function validate(): Promise<string> {
  const before = await panel.$$eval("[data-proposal-drawer] [data-validation-result]", (elements) => elements.length);
  await openValidateForm(panel);
  await panel.locator('[data-proposal-drawer] button[name="run-validation"]').click();
  await panel.waitForFunction(
    (count) => document.querySelectorAll("[data-proposal-drawer] [data-validation-result]").length > count,
    { timeout: 150_000 },
    before,
  );
  return panel.$eval("[data-proposal-drawer] [data-validation-result]", (element) => element.getAttribute("data-validation-result") ?? "");
}

beforeAll(async () => {
  await serveInvoices();
  ({ cleanup, agent, token, chromium } = await startPanelJourney("elnor-validation-advice-", exportProposal));
  panel = await openPairedPanel(chromium, agent, token);
}, 90_000);

afterAll(() => endJourney({ chromium, agent, cleanup, sites: [{ close: () => new Promise((resolve) => site?.close(resolve)) }] }));

describe("a failed validation in the review drawer (issue #35)", () => {
  it("names the check that did not hold and offers its fixes", async () => {
    await panel.locator("#learn-tab-pending").click();
    await panel.locator('[data-pending-group="ready_for_review"] button::-p-text(Review)').click();
    const first = await validate();
    const shown = await panel.$eval("[data-proposal-drawer] [data-validation-result]", (element) => (element as HTMLElement).innerText);
    expect(first, shown).toBe("failed");
    await panel.waitForSelector("[data-validation-advice]");
    const advice = await panel.$eval("[data-validation-advice]", (element) => (element as HTMLElement).innerText);
    expect(advice).toContain("What to do about it");
    expect(advice).toMatch(/The check “.+” did not hold \(expected: The page says "Export ready"\)/);
    const fixes = await panel.$$eval("[data-validation-advice] [data-fix]", (buttons) => buttons.map((button) => button.getAttribute("data-fix")));
    expect(fixes).toEqual(expect.arrayContaining(["other_evidence", "confirm_by_hand"]));
    await drawerShot(panel, "validation-advice", 1100);
  }, 200_000);

  it("marks the check as confirmed by hand, and the next validation passes what the page can show and leaves that check to the person", async () => {
    await panel.locator('[data-validation-advice] button[data-fix="confirm_by_hand"]').click();
    await waitForText(panel, "[data-review-message]", "Revised", 20_000);
    // The check is the person's now: the drawer no longer offers to hand it over.
    await panel.waitForFunction(() => document.querySelector('[data-validation-advice] button[data-fix="confirm_by_hand"]') === null, { timeout: 10_000 });
    const result = await validate();
    const shown = await panel.$eval("[data-proposal-drawer] [data-validation-result]", (element) => (element as HTMLElement).innerText);
    // Nothing failed; the one check is the person's, so the run is "Partly checked" and the proposal ready for review.
    expect(result, shown).toBe("partial");
    expect(shown).toContain("confirm by hand");
    await panel.waitForSelector('[data-proposal-drawer] button[name="install"]:not([disabled])', { timeout: 10_000 });
    expect(await panel.$("[data-validation-advice]")).toBeNull();
    // The newest run is shown first and opened; the failed one stays below it.
    expect(
      await panel.$$eval("[data-proposal-drawer] [data-validation-result]", (runs) => runs.map((run) => run.getAttribute("data-validation-result"))),
    ).toEqual(["partial", "failed"]);
    await drawerShot(panel, "validation-advice-confirmed", 1100);
  }, 200_000);
});

import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "puppeteer-core";
import type { AgentProcess } from "../../agent/test-support/agent-process";
import type { AgentCall } from "../../agent/test-support/ready-proposal";

/** Steps of the side panel that several journeys share (issue #16 e2e tests). */

export async function waitForText(page: Page, selector: string, text: string, timeout = 20_000): Promise<void> {
  await page.waitForFunction(
    (sel, wanted) => [...document.querySelectorAll(sel)].some((element) => (element.textContent ?? "").includes(wanted)),
    { timeout },
    selector,
    text,
  );
}

export async function waitForSessionState(page: Page, states: string[], timeout = 20_000): Promise<string> {
  await page.waitForFunction(
    (wanted) => wanted.includes(document.querySelector("[data-session-state]")?.getAttribute("data-session-state") ?? ""),
    { timeout },
    states,
  );
  return (await page.$eval("[data-session-state]", (element) => element.getAttribute("data-session-state")).catch(() => null)) ?? "";
}

/** Answers the panel's questions one at a time: required ones with `answer(question)`, optional ones skipped. */
export async function answerPanelQuestions(page: Page, answer: (question: string) => string): Promise<void> {
  await page.waitForSelector("[data-questions] textarea[name='answer']", { timeout: 30_000 });
  for (let guard = 0; guard < 10; guard += 1) {
    const question = await page.$eval("[data-questions] label", (label) => ({ text: label.textContent ?? "", required: label.querySelector(".required") !== null }));
    if (question.required) await page.locator("[data-questions] textarea[name='answer']").fill(answer(question.text));
    if (await page.$("button[name='send-answers']")) {
      await page.locator("button[name='send-answers']").click();
      return;
    }
    await page.locator("button[name='next-question']").click();
    await page.waitForFunction((previous) => document.querySelector("[data-questions] label")?.textContent !== previous, {}, question.text);
  }
  throw new Error("the questions never ended");
}

/** An AgentCall (agent/test-support) over HTTP to an agent process, with its token. */
export async function agentCallOf(agent: AgentProcess, root: string): Promise<AgentCall> {
  const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
  return async (method, route, payload) => {
    const response = await fetch(`${agent.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { "content-type": "application/json" }) },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
}

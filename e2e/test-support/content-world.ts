import type { CDPSession, Page } from "puppeteer-core";
import { waitUntil } from "../golden/demonstration";

/**
 * The content script's isolated world in a page, through CDP: messages sent from there are
 * messages from a genuine content script of that tab (Chrome sets the sender, not us).
 */
export interface ContentWorld {
  client: CDPSession;
  contextId(): number | undefined;
}

export async function contentWorld(page: Page): Promise<ContentWorld> {
  const client = await page.createCDPSession();
  const contexts = new Map<number, { name: string; type?: string }>();
  client.on("Runtime.executionContextCreated", ({ context }) => {
    contexts.set(context.id, { name: context.name, type: (context.auxData as { type?: string } | undefined)?.type });
  });
  client.on("Runtime.executionContextDestroyed", ({ executionContextId }) => contexts.delete(executionContextId));
  client.on("Runtime.executionContextsCleared", () => contexts.clear());
  await client.send("Runtime.enable");
  return {
    client,
    contextId: () => [...contexts].find(([, context]) => context.type === "isolated" && context.name.startsWith("elnor-learn"))?.[0],
  };
}

/** Sends `message` with `chrome.runtime.sendMessage` from the content script's world; its answer. */
export async function sendFromContent(world: ContentWorld, message: unknown): Promise<unknown> {
  const contextId = await waitUntil(
    async () => world.contextId(),
    (id) => id !== undefined,
    "the content script's world",
    15_000,
  );
  const result = await world.client.send("Runtime.evaluate", {
    expression: `chrome.runtime.sendMessage(${JSON.stringify(message)})`,
    contextId,
    awaitPromise: true,
    returnByValue: true,
  });
  if (result.exceptionDetails !== undefined) throw new Error(result.exceptionDetails.exception?.description ?? result.exceptionDetails.text);
  return result.result.value;
}

/** Waits until the content script of `page` has its recording config. */
export async function waitForRecorder(page: Page): Promise<ContentWorld> {
  const world = await contentWorld(page);
  await waitUntil(
    () => sendFromContent(world, { type: "capture/get-config" }) as Promise<{ config: unknown }>,
    (reply) => reply.config !== null,
    "the page's config",
    15_000,
  );
  return world;
}

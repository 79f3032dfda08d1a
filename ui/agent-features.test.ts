import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEATURE_ROUTES, featuresFromOpenApi } from "./agent-features";
import { startListeningAgent, type ListeningAgent } from "./testing/listening-agent";

let agent: ListeningAgent;
beforeAll(async () => {
  agent = await startListeningAgent();
});
afterAll(async () => {
  await agent.close();
});

describe("the agent's features, read from its OpenAPI description", () => {
  it("finds every route this agent has, and none it does not", async () => {
    const features = featuresFromOpenApi(await agent.client.openApi());
    expect(features).toBeDefined();
    const registered = new Set(agent.app.registeredRoutes.map((route) => `${route.method.toLowerCase()} ${route.url.replace(/:(\w+)/g, "{$1}")}`));
    for (const [feature, [method, route]] of Object.entries(FEATURE_ROUTES)) {
      expect(features!.has(feature as keyof typeof FEATURE_ROUTES), feature).toBe(registered.has(`${method} ${route}`));
    }
    // What the panel is built against today (issue #6 landed, and request-more-tests with it).
    expect(features!.has("validate")).toBe(true);
    expect(features!.has("request_more_tests")).toBe(true);
  });

  it("reads nothing from a document that is not an OpenAPI description", () => {
    expect(featuresFromOpenApi({ hello: "world" })).toBeUndefined();
    expect(featuresFromOpenApi({ paths: {} })).toEqual(new Set());
  });
});

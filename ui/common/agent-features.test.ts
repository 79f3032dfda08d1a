import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentClient } from "../agent-link/agent-client";
import { FEATURE_ROUTES, featuresFromOpenApi } from "./agent-features";
import { AgentFeaturesState } from "./agent-features.svelte";
import { startListeningAgent, type ListeningAgent } from "../test-support/listening-agent";

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

describe("the panel's reading of the description (the Learn New Ability cards wait for it)", () => {
  it("is reading until the description is in, then known", async () => {
    const state = new AgentFeaturesState(agent.client);
    expect(state.status).toBe("reading");
    const loading = state.load();
    expect(state.status).toBe("reading");
    await loading;
    expect(state.status).toBe("known");
    expect(state.failure).toBeNull();
    expect(state.has("coaching")).toBe(true);
  });

  it("says why when no agent answers, and reads it again when asked", async () => {
    // Port 9 (discard) has no agent listening on this machine.
    const state = new AgentFeaturesState(createAgentClient({ baseUrl: "http://127.0.0.1:9", token: "t".repeat(32) }));
    await state.load();
    expect(state.status).toBe("unknown");
    expect(state.failure).toBe("The agent did not answer.");
    expect(state.has("coaching")).toBe(false);
    const again = state.load();
    expect([state.status, state.failure]).toEqual(["reading", null]);
    await again;
    expect(state.status).toBe("unknown");
  });
});

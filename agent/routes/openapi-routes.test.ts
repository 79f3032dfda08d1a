import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestAgent, type TestAgent } from "../test-support/test-agent";

let agent: TestAgent;

beforeAll(async () => {
  agent = await startTestAgent();
});
afterAll(async () => {
  await agent.close();
});

describe("GET /api/openapi.json", () => {
  it("describes every route the agent serves, with the bearer scheme", async () => {
    const response = await agent.app.inject({ method: "GET", url: "/api/openapi.json", headers: agent.headers() });
    expect(response.statusCode).toBe(200);
    const doc = response.json() as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    // Every route the app actually registered (minus the doc itself and HEAD twins) is in the description.
    expect(agent.app.registeredRoutes.length).toBeGreaterThan(30);
    for (const route of agent.app.registeredRoutes) {
      // OpenAPI cannot describe a WebSocket; the stream's protocol is documented in the info text.
      if (route.url === "/api/openapi.json" || route.url === "/api/observations/stream" || route.method === "HEAD") continue;
      const path = route.url.replace(/:([A-Za-z]+)/g, "{$1}").replace(/\*$/, "{*}");
      expect(doc.paths[path], `${route.method} ${route.url} is missing from the OpenAPI description`).toBeDefined();
      expect(doc.paths[path]?.[route.method.toLowerCase()], `${route.method} ${route.url}`).toBeDefined();
    }
  });

  it("needs the token like every other route", async () => {
    const response = await agent.app.inject({ method: "GET", url: "/api/openapi.json", headers: { host: agent.headers().host as string } });
    expect(response.statusCode).toBe(401);
  });
});

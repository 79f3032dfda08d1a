import { describe, expect, it } from "vitest";
import { startTestAgent, createFakeClock } from "../test-support/test-agent";
import { ADAPTER_HEARTBEAT_TTL_MS, MAX_TRACKED_ADAPTERS, createAdapterRegistry } from "./adapter-registry";

const ids = (registry: ReturnType<typeof createAdapterRegistry>) =>
  registry
    .list()
    .map((status) => status.adapter_id)
    .sort();

describe("adapter registry bound (issue 17)", () => {
  it("remembers at most MAX_TRACKED_ADAPTERS however many adapter ids report in", () => {
    const clock = createFakeClock();
    const registry = createAdapterRegistry({ clock });
    for (let index = 0; index < 10_000; index += 1) {
      registry.heartbeat({ adapter_id: `reload-${index}`, kind: "browser_dom", enabled: true });
      clock.advance(10);
    }
    const listed = registry.list();
    expect(listed).toHaveLength(MAX_TRACKED_ADAPTERS);
    // The newest are the ones kept.
    expect(listed.some((status) => status.adapter_id === "reload-9999")).toBe(true);
    expect(listed.some((status) => status.adapter_id === "reload-0")).toBe(false);
  });

  it("a live adapter that keeps beating stays healthy while thousands of others come and go", () => {
    const clock = createFakeClock();
    const registry = createAdapterRegistry({ clock, maxAdapters: 8 });
    for (let index = 0; index < 2_000; index += 1) {
      registry.heartbeat({ adapter_id: "extension", kind: "browser_dom", enabled: true });
      registry.heartbeat({ adapter_id: `transient-${index}`, kind: "terminal_command", enabled: true });
      clock.advance(1_000);
    }
    expect(registry.list()).toHaveLength(8);
    expect(registry.healthyOf(["browser_dom"]).map((status) => status.adapter_id)).toEqual(["extension"]);
  });

  it("forgets adapters that are gone (disconnected, or silent past the TTL) before live ones", () => {
    const clock = createFakeClock();
    const registry = createAdapterRegistry({ clock, maxAdapters: 3 });
    for (const id of ["a", "b", "c"]) registry.heartbeat({ adapter_id: id, kind: "browser_dom", enabled: true });
    registry.disconnect("b");
    registry.heartbeat({ adapter_id: "d", kind: "browser_dom", enabled: true });
    expect(ids(registry)).toEqual(["a", "c", "d"]);

    // "a" falls silent; "c" and "d" keep beating. The next newcomer replaces "a", though "a" is not the first in line by id.
    clock.advance(ADAPTER_HEARTBEAT_TTL_MS + 1);
    registry.heartbeat({ adapter_id: "d", kind: "browser_dom", enabled: true });
    registry.heartbeat({ adapter_id: "c", kind: "browser_dom", enabled: true });
    registry.heartbeat({ adapter_id: "e", kind: "browser_dom", enabled: true });
    expect(ids(registry)).toEqual(["c", "d", "e"]);
  });

  it("when every adapter is live, the one heard from longest ago is forgotten", () => {
    const clock = createFakeClock();
    const registry = createAdapterRegistry({ clock, maxAdapters: 2 });
    registry.heartbeat({ adapter_id: "a", kind: "browser_dom", enabled: true });
    registry.heartbeat({ adapter_id: "b", kind: "browser_dom", enabled: true });
    registry.heartbeat({ adapter_id: "a", kind: "browser_dom", enabled: true });
    registry.heartbeat({ adapter_id: "c", kind: "browser_dom", enabled: true });
    expect(ids(registry)).toEqual(["a", "c"]);
  });

  it("the agent's adapter list stays bounded through POST /api/observation/adapters/heartbeat", async () => {
    const agent = await startTestAgent();
    try {
      for (let index = 0; index < MAX_TRACKED_ADAPTERS + 50; index += 1) {
        const beat = await agent.call("POST", "/api/observation/adapters/heartbeat", {
          adapter_id: `desktop-${index}`,
          kind: "terminal_command",
          enabled: true,
          schema_version: 1,
        });
        expect(beat.status).toBe(200);
      }
      const listed = await agent.call("GET", "/api/observation/adapters");
      expect(listed.body.adapters).toHaveLength(MAX_TRACKED_ADAPTERS);
      expect((listed.body.adapters as Array<{ adapter_id: string }>).some((status) => status.adapter_id === `desktop-${MAX_TRACKED_ADAPTERS + 49}`)).toBe(true);
    } finally {
      await agent.close();
    }
  });
});

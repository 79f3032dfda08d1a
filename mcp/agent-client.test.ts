import { homedir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseSseFrame, readMcpServerConfig } from "./agent-client";
import { isListed, type ListedAbility } from "./enabled-abilities";

describe("where the MCP server finds the agent and its token", () => {
  it("reads the agent's own variables: ELNOR_MEMORY's token file and the agent's port", () => {
    expect(readMcpServerConfig({ ELNOR_MEMORY: "/tmp/memory-a" })).toEqual({
      agentUrl: "http://127.0.0.1:47630",
      tokenFile: "/tmp/memory-a/system/agent/token",
      pollMs: 3000,
    });
    expect(readMcpServerConfig({ ELNOR_MEMORY: "/tmp/memory-a", ELNOR_AGENT_PORT: "5123", ELNOR_MCP_POLL_MS: "500" })).toMatchObject({
      agentUrl: "http://127.0.0.1:5123",
      pollMs: 500,
    });
    expect(readMcpServerConfig({ ELNOR_MEMORY: "" }).tokenFile).toBe(path.join(homedir(), ".elnor/memory/system/agent/token"));
  });

  it("refuses an agent URL that is not this machine's (the token would go with every request)", () => {
    for (const url of ["https://agent.example.com", "http://192.168.1.20:47630", "http://user:pw@127.0.0.1:47630", "not a url", "https://127.0.0.1:47630"]) {
      expect(() => readMcpServerConfig({ ELNOR_MEMORY: "/tmp/m", ELNOR_AGENT_URL: url }), url).toThrow(/^\[AGENT_URL_NOT_LOOPBACK\]/);
    }
    expect(readMcpServerConfig({ ELNOR_MEMORY: "/tmp/m", ELNOR_AGENT_URL: "http://localhost:4000/" }).agentUrl).toBe("http://localhost:4000");
  });
});

describe("reading the agent's SSE frames", () => {
  it("gives each frame's event and data, and nothing for a keepalive comment", () => {
    expect(parseSseFrame('id: 3\nevent: run.step\ndata: {"a":1}')).toEqual({ event: "run.step", data: '{"a":1}' });
    expect(parseSseFrame("data: one\ndata: two")).toEqual({ event: "message", data: "one\ntwo" });
    expect(parseSseFrame(":keepalive")).toBeUndefined();
  });
});

describe("least privilege: what MCP may see", () => {
  const entry = (overrides: Partial<ListedAbility>): ListedAbility => ({
    ability_id: "learned.a",
    title: "A",
    family: "browser",
    install_lane: "experimental_private",
    enabled: true,
    usable_now: true,
    source: "learned",
    ...overrides,
  });
  it("lists only this agent's enabled, unquarantined, usable abilities", () => {
    expect(isListed(entry({}))).toBe(true);
    expect(isListed(entry({ source: "imported", install_lane: "approved_workspace" }))).toBe(true);
    expect(isListed(entry({ enabled: false, usable_now: false }))).toBe(false);
    expect(isListed(entry({ install_lane: "quarantined", usable_now: false }))).toBe(false);
    expect(isListed(entry({ usable_now: false, reason_unusable: "skill files are missing from the workspace" }))).toBe(false);
    expect(isListed(entry({ source: "native" }))).toBe(false);
  });
});

import { render } from "svelte/server";
import { describe, expect, it } from "vitest";
import type { ObservationAdapterStatus } from "../../shared/learning/observed-actions/observation-adapter";
import { createAgentClient } from "../agent-link/agent-client";
import type { LearnSession } from "../../shared/learning/sessions/learn-session";
import DesktopAdapters from "./DesktopAdapters.svelte";
import ObservationScopePanel from "../session/capture/ObservationScopePanel.svelte";
import { DesktopAdaptersState, desktopAdapters } from "./desktop-adapters.svelte";
import { noBrowser } from "../common/no-browser";

function adaptersState(adapters: ObservationAdapterStatus[] | null): DesktopAdaptersState {
  const state = new DesktopAdaptersState({
    client: createAgentClient({ baseUrl: "http://127.0.0.1:9" }),
    browser: noBrowser,
    features: { has: () => false },
    onFailure: () => {},
  });
  state.adapters = adapters === null ? null : desktopAdapters(adapters);
  return state;
}

const terminal: ObservationAdapterStatus = {
  adapter_id: "reference-desktop-cli:terminal_command",
  kind: "terminal_command",
  enabled: true,
  phase: "phase_1",
  healthy: true,
  last_seen_at: "2026-11-24T08:00:00.000Z",
  schema_version: 1,
};

describe("the desktop adapters of 'This computer'", () => {
  it("says how to watch a whole terminal with the shell integration, and how to run the reference adapter, when none is healthy", () => {
    const { body } = render(DesktopAdapters, { props: { state: adaptersState([]) } });
    expect(body).toContain('data-desktop-adapters="none"');
    expect(body).toContain("source agent/reference-adapter/shell-integration.sh");
    expect(body).toContain("~/.bashrc");
    expect(body).toContain("npm run adapter -- --register");
  });

  it("lists a healthy terminal adapter, and still names the shell integration", () => {
    const { body } = render(DesktopAdapters, { props: { state: adaptersState([terminal, { ...terminal, adapter_id: "browser", kind: "browser_dom" }]) } });
    expect(body).toContain('data-desktop-adapters="healthy"');
    expect(body).toContain('data-adapter-id="reference-desktop-cli:terminal_command"');
    expect(body).not.toContain('data-adapter-id="browser"');
    expect(body).toContain("source agent/reference-adapter/shell-integration.sh");
  });
});

describe("what is observed, for a session that watches this computer", () => {
  const session: LearnSession = {
    learn_session_id: "6f1c2c1e-7d3a-4b8e-9a51-2f0d3c4b5a69",
    entry_mode: "demonstrating_skill",
    observation_mode: "outside_agent",
    build_policy: "build_then_review",
    execution_mode: "guided",
    target_kind: "new_skill",
    state: "capturing",
    actor_mode: "mixed",
    target_app_family: "desktop",
    target_app_whitelist: [],
    active_trace_ids: [],
    active_observation_batch_ids: [],
    created_at: "2026-11-24T08:00:00.000Z",
    updated_at: "2026-11-24T08:00:00.000Z",
    schema_version: 1,
  };

  it("names this computer and says no site is watched, where a browser session says only 'none'", () => {
    const desktop = render(ObservationScopePanel, { props: { session, scope: null } }).body;
    expect(desktop).toContain("data-watches-computer");
    expect(desktop).toContain("none: this computer only");
    const browser = render(ObservationScopePanel, { props: { session: { ...session, target_app_family: "browser" }, scope: null } }).body;
    expect(browser).not.toContain("data-watches-computer");
    expect(browser).not.toContain("this computer only");
  });
});

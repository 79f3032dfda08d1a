import type { AgentClient } from "../agent-link/agent-client";
import { AgentRequestError } from "../agent-link/transport/agent-failure";
import type { AgentFeature } from "./agent-features";
import type { PanelBrowser } from "../../shared/observation/panel-browser";

/** What every Learn state class is built with: the one agent client, the browser, and a failure sink. */
export interface LearnDeps {
  client: AgentClient;
  browser: PanelBrowser;
  /** Which optional routes the paired agent has (ui/common/agent-features). */
  features: {
    has(feature: AgentFeature): boolean;
    /** "reading" while the agent's description is read (ui/agent-features.svelte); absent when known up front. */
    readonly status?: "reading" | "known" | "unknown";
  };
  /** Told of every failed agent call, so agent-level failures reach the status bar. */
  onFailure(error: unknown): void;
}

/** Reports an agent failure to the deps' sink; rethrows anything that is not one (a bug). */
export function report(deps: LearnDeps, error: unknown): void {
  if (!(error instanceof AgentRequestError)) throw error;
  deps.onFailure(error);
}

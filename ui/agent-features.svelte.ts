import type { AgentClient } from "./agent-client";
import { featuresFromOpenApi, type AgentFeature } from "./agent-features";

/** The features of the paired agent, read once from its OpenAPI description. */
export class AgentFeaturesState {
  features = $state.raw<ReadonlySet<AgentFeature>>(new Set());
  /**
   * `reading` until the description is in (or has failed); `unknown` when the agent has no
   * readable description (then nothing optional is offered).
   */
  status = $state<"reading" | "known" | "unknown">("reading");
  readonly #client: AgentClient;

  constructor(client: AgentClient) {
    this.#client = client;
  }

  has(feature: AgentFeature): boolean {
    return this.features.has(feature);
  }

  async load(): Promise<void> {
    try {
      const features = featuresFromOpenApi(await this.#client.openApi());
      if (features === undefined) {
        this.status = "unknown";
        return;
      }
      this.features = features;
      this.status = "known";
    } catch {
      // An agent that cannot describe itself offers only what the panel always needs; the
      // failure itself reaches the status bar through the calls that follow.
      this.status = "unknown";
    }
  }
}

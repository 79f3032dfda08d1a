import type { AgentClient } from "../agent-link/agent-client";
import { AgentRequestError } from "../agent-link/transport/agent-failure";
import { featuresFromOpenApi, type AgentFeature } from "./agent-features";
import { describeFailure } from "./failure-text";

/** Why the description was not read, in words; the status bar speaks for an agent that is gone. */
function whyUnread(error: unknown): string {
  if (error instanceof AgentRequestError && error.failure.kind === "unreachable") return "The agent did not answer.";
  return describeFailure(error);
}

/** The features of the paired agent, read once from its OpenAPI description. */
export class AgentFeaturesState {
  features = $state.raw<ReadonlySet<AgentFeature>>(new Set());
  /**
   * `reading` until the description is in (or has failed); `unknown` when the agent has no
   * readable description (then nothing optional is offered).
   */
  status = $state<"reading" | "known" | "unknown">("reading");
  /** Why the description could not be read; null while it is read, once it is, or when the agent has none. */
  failure = $state<string | null>(null);
  readonly #client: AgentClient;

  constructor(client: AgentClient) {
    this.#client = client;
  }

  has(feature: AgentFeature): boolean {
    return this.features.has(feature);
  }

  async load(): Promise<void> {
    this.status = "reading";
    this.failure = null;
    try {
      const features = featuresFromOpenApi(await this.#client.openApi());
      if (features === undefined) {
        this.status = "unknown";
        return;
      }
      this.features = features;
      this.status = "known";
    } catch (error) {
      // An agent that cannot describe itself offers only what the panel always needs; the panel
      // says why (with a way to read it again), and agent-level failures reach the status bar
      // through the calls that follow.
      this.status = "unknown";
      this.failure = whyUnread(error);
    }
  }
}

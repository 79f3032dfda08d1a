import { z } from "zod";

/**
 * What the panel can offer depends on the agent it is paired with (§0C.28 partial deployment):
 * each feature is one route, found in the agent's own OpenAPI description. A feature whose
 * route is absent is shown disabled, with the reason, never pretended.
 */
export const FEATURE_ROUTES = {
  skill_markdown: ["get", "/api/learn/proposals/{proposalId}/skill-md"],
  observations: ["get", "/api/learn/sessions/{sessionId}/observations"],
  exclude_events: ["post", "/api/learn/sessions/{sessionId}/exclude-events"],
  validate: ["post", "/api/learn/proposals/{proposalId}/validate"],
  validation_runs: ["get", "/api/learn/proposals/{proposalId}/validation-runs"],
  install: ["post", "/api/learn/proposals/{proposalId}/install"],
  approve: ["post", "/api/learn/proposals/{proposalId}/approve"],
  request_more_tests: ["post", "/api/learn/proposals/{proposalId}/request-more-tests"],
  availability: ["get", "/api/abilities/availability"],
  ability_lifecycle: ["post", "/api/abilities/{abilityId}/activate"],
  skill_import: ["post", "/api/skills/import/uploads"],
  categories: ["get", "/api/categories"],
  runs: ["post", "/api/runs"],
  schedules: ["post", "/api/schedules"],
  practice: ["get", "/api/learn/sessions/{sessionId}/practice"],
  learn_from_this: ["get", "/api/learn/sessions/{sessionId}/seed"],
  use_as_example: ["post", "/api/learn/examples"],
  coaching: ["post", "/api/learn/sessions/{sessionId}/coaching/answer"],
} as const satisfies Record<string, readonly ["get" | "post", string]>;

export type AgentFeature = keyof typeof FEATURE_ROUTES;

const OpenApiPathsSchema = z.object({
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
});

/** The features whose route the agent describes; undefined when the description is unreadable. */
export function featuresFromOpenApi(document: unknown): Set<AgentFeature> | undefined {
  const parsed = OpenApiPathsSchema.safeParse(document);
  if (!parsed.success) return undefined;
  const features = new Set<AgentFeature>();
  for (const [feature, [method, route]] of Object.entries(FEATURE_ROUTES) as Array<[AgentFeature, readonly [string, string]]>) {
    if (parsed.data.paths[route]?.[method] !== undefined) features.add(feature);
  }
  return features;
}

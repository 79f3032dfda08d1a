import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { AbilityLookupQuerySchema, AbilityLookupResultSchema } from "../shared/abilities/lookup-contract";
import { AbilitySkillMarkdownResponseSchema } from "../shared/abilities/skill-markdown";
import { ABILITY_ID_PATTERN, AbilityRunSpecSchema } from "../shared/execution/run-contract";
import { AbilityExplainMatchResponseSchema } from "../shared/learning/route-contracts";
import type { AgentClient } from "./agent-client";
import { enabledAbilities, requireEnabled } from "./enabled-abilities";
import { skillResourceUri } from "./skill-resources";
import { toolResult } from "./tool-result";

/** How many matches find_abilities explains (each is one explain-match call to the agent). */
const EXPLAINED_MATCHES = 5;
const REASONS_PER_MATCH = 8;

/** An ability id as the run contract spells it; the same rule the agent's routes apply. */
export const AbilityIdArgSchema = z
  .string()
  .regex(ABILITY_ID_PATTERN)
  .describe("The ability's id, as find_abilities returns it (e.g. learned.export-the-monthly-invoices).");

export const FindAbilitiesArgsSchema = z
  .object({
    request: AbilityLookupQuerySchema.shape.user_query.min(1).describe("What the person asked for, in their own words (at most 500 characters)."),
    project_id: AbilityLookupQuerySchema.shape.project_id.describe(
      "The project the person is working in, when there is one: abilities scoped to it rank higher.",
    ),
  })
  .strict();

export const DescribeAbilityArgsSchema = z.object({ ability_id: AbilityIdArgSchema }).strict();

type FindAbilitiesArgs = z.infer<typeof FindAbilitiesArgsSchema>;
type DescribeAbilityArgs = z.infer<typeof DescribeAbilityArgsSchema>;
type LookupAnswer = z.infer<typeof AbilityLookupResultSchema>;
type LookupQuery = z.infer<typeof AbilityLookupQuerySchema>;
/** Enabled abilities' titles by id: what find_abilities may show (nothing else is listed). */
type Titles = ReadonlyMap<string, string>;

const FIND_ABILITIES_DESCRIPTION =
  'Finds the abilities the person taught (by demonstrating a task once in their browser) that fit a request in their own words. Two tiers: `matches` (confident, best first, each with why it matched) and `also_consider` (up to 5 below the confidence gate, `confidence: "low"`, each with its title, its description and why it came up: read the descriptions and decide yourself whether one fits, or ask the person). When nothing matches and the person has at most 30 enabled abilities, `enabled_abilities` lists them all (id, title, description) so you can choose among them. Use it first whenever the person asks for a task in a web app (exporting, filing, signing up, ordering ...); then describe_ability the one you chose to learn its inputs before run_ability. Only enabled abilities are returned.';

const DESCRIBE_ABILITY_DESCRIPTION =
  "What one ability does and when to use it, the inputs a run needs (name, type, required, which are secret), the sites it acts on, the checkpoints a run proves, which steps wait for the person's confirmation, and its checkpoint health. Call it before run_ability and ask the person for any input you do not know; never guess secret inputs.";

/** find_abilities and describe_ability: lookup → pick → what a run needs (issue #21's call path). */
export function registerAbilityTools(server: McpServer, agent: AgentClient): void {
  server.registerTool(
    "find_abilities",
    {
      title: "Find abilities for a request",
      description: FIND_ABILITIES_DESCRIPTION,
      inputSchema: FindAbilitiesArgsSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => toolResult(await findAbilities(agent, args, extra.signal)),
  );

  server.registerTool(
    "describe_ability",
    {
      title: "Describe an ability",
      description: DESCRIBE_ABILITY_DESCRIPTION,
      inputSchema: DescribeAbilityArgsSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => toolResult(await describeAbility(agent, args, extra.signal)),
  );
}

/** The lookup query for a request: every install lane, the person's private abilities included. */
function lookupQueryOf(args: FindAbilitiesArgs): LookupQuery {
  return AbilityLookupQuerySchema.parse({
    user_query: args.request,
    ...(args.project_id === undefined ? {} : { project_id: args.project_id }),
    install_lanes_allowed: ["experimental_private", "approved_workspace", "shared_promoted"],
    include_private_owned_by_user: true,
    schema_version: 1,
  });
}

/** One confident match with the wording reasons the agent's explain-match gives for it. */
async function explainedMatch(agent: AgentClient, query: LookupQuery, match: LookupAnswer["matches"][number], titles: Titles, signal: AbortSignal) {
  const why = await agent.post(
    "/api/abilities/explain-match",
    { ability_id: match.ability_id, user_query: query.user_query, ...(query.project_id === undefined ? {} : { project_id: query.project_id }) },
    AbilityExplainMatchResponseSchema,
    signal,
  );
  return {
    ability_id: match.ability_id,
    title: titles.get(match.ability_id),
    score: Number(match.score.toFixed(3)),
    usable_now: match.usable_now,
    reasons: why.match_reasons.filter((reason) => reason.startsWith("wording:")).slice(0, REASONS_PER_MATCH),
  };
}

/** An ability as a model chooses among them: its id, title and, when it has one, description. */
function withDescription(titles: Titles, item: { ability_id: string; description?: string | undefined }) {
  return {
    ability_id: item.ability_id,
    title: titles.get(item.ability_id),
    ...(item.description === undefined ? {} : { description: item.description }),
  };
}

/** The enabled abilities of the tier below the gate, each with its description and why it came up. */
function alsoConsiderOf(lookup: LookupAnswer, titles: Titles) {
  return lookup.also_consider
    .filter((item) => titles.has(item.ability_id))
    .map((item) => ({
      ...withDescription(titles, item),
      score: Number(item.score.toFixed(3)),
      usable_now: item.usable_now,
      confidence: item.confidence,
      why: item.reason,
    }));
}

/** What the assistant should do next, given what was found. */
function nextStepOf(explained: number, alsoConsider: number, listAll: boolean, enabled: number): string {
  return explained > 0
    ? "Call describe_ability with the best match's ability_id to see its inputs before running it."
    : alsoConsider > 0 || (listAll && enabled > 0)
      ? "No ability matched with confidence. Read the descriptions of also_consider (and enabled_abilities, when listed): if one does what the person asked, describe_ability it; if unsure, ask the person. Otherwise they can teach one in the Ability Learning side panel."
      : "No enabled ability fits this request; the person can teach one in the Ability Learning side panel.";
}

/** find_abilities' answer: one lookup, then one explain-match per confident match (at most `EXPLAINED_MATCHES`). */
async function findAbilities(agent: AgentClient, args: FindAbilitiesArgs, signal: AbortSignal): Promise<Record<string, unknown>> {
  const query = lookupQueryOf(args);
  const [lookup, enabled] = await Promise.all([agent.post("/api/abilities/lookup", query, AbilityLookupResultSchema, signal), enabledAbilities(agent, signal)]);
  const titles = new Map(enabled.map((entry) => [entry.ability_id, entry.title]));
  const matches = lookup.matches.filter((match) => titles.has(match.ability_id)).slice(0, EXPLAINED_MATCHES);
  const explained = await Promise.all(matches.map((match) => explainedMatch(agent, query, match, titles, signal)));
  // Issue #34: the tier below the gate, each candidate with its description (what a model chooses by),
  // and every enabled ability when few: all from the lookup's answer, no SKILL.md read per candidate.
  const alsoConsider = alsoConsiderOf(lookup, titles);
  const listed = explained.length === 0 ? lookup.all_abilities?.filter((item) => titles.has(item.ability_id)) : undefined;
  const listAll = listed !== undefined;
  return {
    request: query.user_query,
    matches: explained,
    also_consider: alsoConsider,
    ...(listed === undefined ? {} : { enabled_abilities: listed.map((item) => withDescription(titles, item)) }),
    next: nextStepOf(explained.length, alsoConsider.length, listAll, enabled.length),
  };
}

/** describe_ability's answer: the run-spec and the SKILL.md of one enabled ability. */
async function describeAbility(agent: AgentClient, args: DescribeAbilityArgs, signal: AbortSignal): Promise<Record<string, unknown>> {
  const entry = await requireEnabled(agent, args.ability_id, signal);
  const [spec, skill] = await Promise.all([
    agent.get(`/api/abilities/${entry.ability_id}/run-spec`, AbilityRunSpecSchema, signal),
    agent.get(`/api/abilities/${entry.ability_id}/skill-md`, AbilitySkillMarkdownResponseSchema, signal),
  ]);
  return {
    ability_id: entry.ability_id,
    title: spec.title,
    what_it_does: skill.description ?? spec.description,
    when_to_use: skill.when_to_use,
    inputs: spec.inputs,
    sites: spec.sites,
    checkpoints: spec.checkpoints,
    confirmation_steps: spec.confirmation_steps,
    checkpoint_health: spec.checkpoint_health ?? entry.checkpoint_health ?? "no_data",
    runnable: spec.runnable,
    ...(spec.not_runnable_reason === undefined ? {} : { not_runnable_reason: spec.not_runnable_reason }),
    instructions_resource: skillResourceUri(entry.ability_id),
  };
}

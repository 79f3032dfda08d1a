import { createHash } from "node:crypto";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { lookupRejectionReason, scoreAbilityMatch, LOOKUP_MIN_SCORE, SCORE_EPSILON } from "../lookup/baseline-scorer";
import { AbilityAvailabilityEntrySchema } from "../../shared/abilities/availability";
import { AbilityLookupQuerySchema, AbilityLookupResultSchema } from "../../shared/abilities/lookup-contract";
import { AbilitySkillMarkdownResponseSchema, SKILL_MARKDOWN_MAX_CHARS } from "../../shared/abilities/skill-markdown";
import { readFrontmatterMapping } from "../../shared/skills/frontmatter";
import { ApproveProposalRequestSchema } from "../../shared/learning/compat-aliases";
import {
  AbilityActivateResponseSchema,
  AbilityAvailabilityResponseSchema,
  AbilityDeactivateResponseSchema,
  AbilityDeleteResponseSchema,
  AbilityExplainMatchRequestSchema,
  AbilityExplainMatchResponseSchema,
  AbilityPromoteSharedResponseSchema,
  AbilityQuarantineResponseSchema,
  AbilityUnquarantineResponseSchema,
  ProposalDetailResponseSchema,
  ProposalInstallRequestSchema,
  ProposalInstallResponseSchema,
} from "../../shared/learning/route-contracts";
import { QuarantineAbilityRequestSchema } from "../../shared/learning/sessions/session-requests";
import type { Clock } from "../common/clock";
import { AppError } from "../errors/app-error";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import { whenToUseLines } from "./ability-lookup-service";
import type { AbilityService } from "./ability-service";
import { importedSkillFolder } from "./imported-skill-folder";
import type { InstallableProposals, ValidationActivity } from "./learning-ports";
import type { WorkspaceProjector } from "./workspace-projection";
import { SKILL_MD } from "../../shared/skills/skill-folder";

export interface AbilityRoutesOptions {
  abilities: AbilityService;
  proposals: Pick<InstallableProposals, "detail">;
  validation: ValidationActivity;
  clock: Clock;
  memory: MemoryStore;
  /** Where an imported bundle's own SKILL.md is (its projected copy), when ELNOR_MEMORY keeps none. */
  projector?: WorkspaceProjector;
  /** After a delete: cancels the ability's runs and removes their files; how many runs it purged. */
  onAbilityDeleted?: (abilityId: string) => Promise<number>;
}

const ProposalParamsSchema = z.object({ proposalId: z.string().uuid() });
const AbilityParamsSchema = z.object({ abilityId: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,159}$/) });

type RouteApp = Parameters<FastifyPluginAsyncZod<AbilityRoutesOptions>>[0];

/** Install and approve (§0C.16 proposal routes) and the §0C.16 ability routes (issue #6). */
export const abilityRoutes: FastifyPluginAsyncZod<AbilityRoutesOptions> = async (app, options) => {
  proposalLaneRoutes(app, options);
  availabilityRoutes(app, options);
  skillMarkdownRoute(app, options);
  lookupRoutes(app, options);
  lifecycleRoutes(app, options);
};

/** The ability of an id in the current availability snapshot, if it lists one. */
async function snapshotEntry(abilities: AbilityService, abilityId: string) {
  return (await abilities.snapshot()).snapshot.abilities.find((candidate) => candidate.ability_id === abilityId);
}

/** Install (the private lane) and approve (the workspace lane) of a proposal. */
function proposalLaneRoutes(app: RouteApp, { abilities, proposals, validation }: Pick<AbilityRoutesOptions, "abilities" | "proposals" | "validation">): void {
  const notWhileValidating = (proposalId: string) => {
    if (validation.inProgress(proposalId))
      throw new AppError("VALIDATION_IN_PROGRESS", "This proposal is being validated; install it once the run has finished.");
  };
  app.post(
    "/api/learn/proposals/:proposalId/install",
    { schema: { params: ProposalParamsSchema, body: ProposalInstallRequestSchema, response: { 200: ProposalInstallResponseSchema } } },
    async (request) => {
      // Lanes (issue #6): install is the private lane; the workspace lane is an explicit approval.
      notWhileValidating(request.params.proposalId);
      if (request.body.install_lane !== "experimental_private") {
        throw new AppError("INSTALL_LANE_DENIED", "Install goes to your private lane; use Approve for the workspace lane.");
      }
      return abilities.install(request.params.proposalId, "experimental_private");
    },
  );

  app.post(
    "/api/learn/proposals/:proposalId/approve",
    { schema: { params: ProposalParamsSchema, body: ApproveProposalRequestSchema, response: { 200: ProposalDetailResponseSchema } } },
    async (request) => {
      notWhileValidating(request.params.proposalId);
      if (request.body.approval_scope !== "approved_workspace") {
        throw new AppError("INSTALL_LANE_DENIED", "Approve for the workspace first; sharing is a separate promote-shared step afterwards.");
      }
      await abilities.install(request.params.proposalId, "approved_workspace");
      return proposals.detail(request.params.proposalId);
    },
  );
}

/** The availability snapshot (with its entity tag) and one ability's entry in it. */
function availabilityRoutes(app: RouteApp, { abilities }: Pick<AbilityRoutesOptions, "abilities">): void {
  /**
   * The availability answer's entity tag: a digest of the snapshot, computed once per snapshot the
   * service holds (each §0C.11B trigger writes a new one), plus the stale flag.
   */
  const snapshotDigests = new WeakMap<object, string>();
  const availabilityTag = (snapshot: object, stale: boolean): string => {
    let digest = snapshotDigests.get(snapshot);
    if (digest === undefined) {
      digest = createHash("sha256").update(JSON.stringify(snapshot)).digest("base64url").slice(0, 22);
      snapshotDigests.set(snapshot, digest);
    }
    return `"${digest}${stale ? "-stale" : ""}"`;
  };
  app.get("/api/abilities/availability", { schema: { response: { 200: AbilityAvailabilityResponseSchema, 304: z.void() } } }, async (request, reply) => {
    const { snapshot, stale } = await abilities.snapshot();
    // §0C.11B staleness: say so rather than present an outdated snapshot as current.
    if (stale) void reply.header("x-availability-stale", "true");
    // R11.2-35: the Skills page re-reads this while it is open; an unchanged snapshot costs a 304.
    const tag = availabilityTag(snapshot, stale);
    void reply.header("etag", tag);
    if (request.headers["if-none-match"] === tag) return reply.code(304).send();
    return {
      abilities: snapshot.abilities.map((entry) => ({
        ability_id: entry.ability_id,
        title: entry.title,
        family: entry.family,
        install_lane: entry.install_lane,
        enabled: entry.enabled,
        usable_now: entry.usable_now,
        ...(entry.reason_unusable === undefined ? {} : { reason_unusable: entry.reason_unusable }),
        ...(entry.checkpoint_health === undefined ? {} : { checkpoint_health: entry.checkpoint_health }),
        source: entry.source,
        ...(entry.skill_version === undefined ? {} : { skill_version: entry.skill_version }),
        ...(entry.last_validated_at === undefined ? {} : { last_validated_at: entry.last_validated_at }),
        ...(entry.last_validation_result === undefined ? {} : { last_validation_result: entry.last_validation_result }),
      })),
      snapshot_as_of: snapshot.snapshot_as_of,
      schema_version: 1 as const,
    };
  });

  app.get(
    "/api/abilities/:abilityId/availability",
    { schema: { params: AbilityParamsSchema, response: { 200: AbilityAvailabilityEntrySchema } } },
    async (request) => {
      const entry = await snapshotEntry(abilities, request.params.abilityId);
      if (entry === undefined) throw new AppError("ABILITY_NOT_FOUND", `No ability ${request.params.abilityId}.`);
      return entry;
    },
  );
}

/** An installed ability's SKILL.md as text (issue #19). */
function skillMarkdownRoute(app: RouteApp, { abilities, memory, projector }: Pick<AbilityRoutesOptions, "abilities" | "memory" | "projector">): void {
  app.get(
    "/api/abilities/:abilityId/skill-md",
    {
      schema: {
        description:
          "An installed ability's SKILL.md as text (read-only), with its description and \"When to use\" lines (issue #19: the MCP server serves it as a resource). Learned abilities are read from ELNOR_MEMORY; an imported one from its canonical copy, else its projected copy in the assistant's workspace. Skills of the assistant's own folders are not served.",
        params: AbilityParamsSchema,
        response: { 200: AbilitySkillMarkdownResponseSchema },
      },
    },
    async (request) => {
      const entry = await snapshotEntry(abilities, request.params.abilityId);
      if (entry === undefined || entry.skill_slug === undefined || (entry.source !== "learned" && entry.source !== "imported")) {
        throw new AppError("ABILITY_NOT_FOUND", `No installed ability ${request.params.abilityId}.`);
      }
      const name = entry.skill_slug;
      const canonical = entry.source === "learned" ? MemoryPaths.installedSkill(name) : importedSkillFolder(name);
      const markdown =
        (await memory.readText(`${canonical}/${SKILL_MD}`)) ?? (entry.source === "imported" ? (await projector?.read(name))?.[SKILL_MD] : undefined);
      if (markdown === undefined) throw new AppError("ABILITY_NOT_FOUND", `The ability ${entry.ability_id} has no SKILL.md any more; reinstall it.`);
      if (markdown.length > SKILL_MARKDOWN_MAX_CHARS)
        throw new AppError("PAYLOAD_TOO_LARGE", `The SKILL.md of ${entry.ability_id} is longer than ${SKILL_MARKDOWN_MAX_CHARS} characters.`);
      const frontmatter = readFrontmatterMapping(markdown);
      const description = frontmatter.ok && typeof frontmatter.value.description === "string" ? frontmatter.value.description.trim().slice(0, 1024) : undefined;
      return {
        ability_id: entry.ability_id,
        skill_name: name,
        title: entry.title,
        ...(description === undefined ? {} : { description }),
        when_to_use: whenToUseLines(markdown)
          .slice(0, 50)
          .map((line) => line.slice(0, 500)),
        markdown,
        schema_version: 1 as const,
      };
    },
  );
}

/** Lookup and explain-match: ranked by the wording matcher (issue #15, the ability service's, one WordNet per agent). */
function lookupRoutes(app: RouteApp, { abilities, clock }: Pick<AbilityRoutesOptions, "abilities" | "clock">): void {
  const lookups = abilities.lookups;
  app.post(
    "/api/abilities/lookup",
    {
      schema: {
        description:
          "Abilities that fit a request in the user's own words, best first (at most 10). The request is read with its typos mended (a word of five letters or more that neither WordNet nor any ability knows is read as the known word one slip away). Matched by wording (issue #15: normalization, base forms and WordNet's related words, field-weighted over title, description, triggers, when-to-use lines and trigger tests) or by meaning (the cosine between sentence vectors of the request and the ability's closest phrase reaches 0.58). Negative triggers, quarantined and disabled abilities and lanes not searched are never matched. `score` is §0C.11C's scope, lane and checkpoint-health weights plus 0.6 × (0.3 × the wording score + 0.7 × the cosine), halved when not usable now; not §0C.11C's score. explain-match shows both scorers. `also_consider` (issue #34): up to 5 abilities below that gate, best first, each with `score`, `reason` (its closest phrase by meaning, the request's words it shares) and `confidence: \"low\"`; never one of `matches` nor one the hard gates refuse; empty when no ability shares any meaning (a cosine of 0.4) or word with the request.",
        body: AbilityLookupQuerySchema,
        response: { 200: AbilityLookupResultSchema },
      },
    },
    async (request) => ({
      ...(await lookups.lookupTiers(request.body)),
      created_at: clock.now().toISOString(),
      schema_version: 1 as const,
    }),
  );

  app.post(
    "/api/abilities/explain-match",
    {
      schema: {
        description:
          'Why lookup would or would not return one ability for a request. `matched`, `score` and `rejection_reasons` are lookup\'s (wording and meaning); `match_reasons` gives its reasons (prefixed "spelling:": the typos it mended, if any; prefixed "wording:": each request word and where and how it was found, or that it was not), then lookup\'s reading of its meaning (prefixed "meaning:": the ability\'s phrase the request reads closest to, and the cosine), then the §0C.11C baseline\'s score and verdict and its own reasons (prefixed "§0C.11C baseline:").',
        body: AbilityExplainMatchRequestSchema,
        response: { 200: AbilityExplainMatchResponseSchema },
      },
    },
    async (request) => {
      const entry = await snapshotEntry(abilities, request.body.ability_id);
      if (entry === undefined) throw new AppError("ABILITY_NOT_FOUND", `No ability ${request.body.ability_id}.`);
      const query = AbilityLookupQuerySchema.parse({ user_query: request.body.user_query, project_id: request.body.project_id, schema_version: 1 });
      // Both scorers (issue #15): the verdict and score are lookup's (wording and meaning), which
      // rank lookups; the §0C.11C baseline's score, verdict and reasons follow as reasons of their own.
      const wording = await lookups.explain(query, entry.ability_id);
      if (wording === undefined) throw new AppError("ABILITY_NOT_FOUND", `No ability ${request.body.ability_id}.`);
      const baseline = scoreAbilityMatch(query.user_query, entry, query.project_id);
      const baselineRejections = [
        lookupRejectionReason(query, entry),
        baseline.score < LOOKUP_MIN_SCORE - SCORE_EPSILON ? `score ${baseline.score.toFixed(2)} is below ${LOOKUP_MIN_SCORE}` : undefined,
      ].filter((reason): reason is string => reason !== undefined);
      const baselineVerdict = `§0C.11C baseline: score ${baseline.score.toFixed(2)}, ${baselineRejections.length === 0 ? "would match" : `would not match (${baselineRejections.join("; ")})`}`;
      return {
        ability_id: entry.ability_id,
        matched: wording.matched,
        score: wording.score,
        match_reasons: [
          ...wording.reasons.map((reason) => (reason.startsWith("meaning: ") || reason.startsWith("spelling: ") ? reason : `wording: ${reason}`)),
          baselineVerdict,
          ...baseline.match_reasons.map((reason) => `§0C.11C baseline: ${reason}`),
        ].map((reason) => reason.slice(0, 240)),
        rejection_reasons: wording.rejections.map((reason) => reason.slice(0, 240)),
      };
    },
  );
}

/** Activate, deactivate, quarantine, unquarantine, delete and promote-shared of an installed ability. */
function lifecycleRoutes(app: RouteApp, { abilities, onAbilityDeleted }: Pick<AbilityRoutesOptions, "abilities" | "onAbilityDeleted">): void {
  app.post(
    "/api/abilities/:abilityId/activate",
    { schema: { params: AbilityParamsSchema, response: { 200: AbilityActivateResponseSchema } } },
    async (request) => {
      await abilities.lifecycle(request.params.abilityId, "activate");
      return { ability_id: request.params.abilityId, enabled: true as const };
    },
  );

  app.post(
    "/api/abilities/:abilityId/deactivate",
    { schema: { params: AbilityParamsSchema, response: { 200: AbilityDeactivateResponseSchema } } },
    async (request) => {
      await abilities.lifecycle(request.params.abilityId, "deactivate");
      return { ability_id: request.params.abilityId, enabled: false as const };
    },
  );

  app.post(
    "/api/abilities/:abilityId/quarantine",
    { schema: { params: AbilityParamsSchema, body: QuarantineAbilityRequestSchema, response: { 200: AbilityQuarantineResponseSchema } } },
    async (request) => {
      await abilities.lifecycle(request.params.abilityId, "quarantine", request.body.reason);
      return { ability_id: request.params.abilityId, quarantined: true as const, reason: request.body.reason };
    },
  );

  app.post(
    "/api/abilities/:abilityId/unquarantine",
    { schema: { params: AbilityParamsSchema, response: { 200: AbilityUnquarantineResponseSchema } } },
    async (request) => {
      await abilities.lifecycle(request.params.abilityId, "unquarantine");
      return { ability_id: request.params.abilityId, quarantined: false as const };
    },
  );

  app.delete("/api/abilities/:abilityId", { schema: { params: AbilityParamsSchema, response: { 200: AbilityDeleteResponseSchema } } }, async (request) => {
    const { abilityId } = request.params;
    await abilities.remove(abilityId);
    // After the commit: should this fail or the agent stop here, the next retention sweep purges them.
    const runsPurged = (await onAbilityDeleted?.(abilityId)) ?? 0;
    return { ability_id: abilityId, deleted: true as const, runs_purged: runsPurged };
  });

  app.post(
    "/api/abilities/:abilityId/promote-shared",
    { schema: { params: AbilityParamsSchema, response: { 200: AbilityPromoteSharedResponseSchema } } },
    async (request) => {
      await abilities.lifecycle(request.params.abilityId, "promote_shared");
      return { ability_id: request.params.abilityId, install_lane: "shared_promoted" as const };
    },
  );
}

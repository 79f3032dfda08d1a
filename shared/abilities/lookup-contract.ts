import { z } from "zod";
import { InstallLaneSchema } from "../skills/proposal";

/**
 * §0C.11 Body of `POST /api/abilities/lookup`. By default only approved and shared lanes are
 * searched, plus (through `include_private_owned_by_user`) the user's own private abilities.
 */
export const AbilityLookupQuerySchema = z.object({
  user_query: z.string().max(500),
  project_id: z.string().max(120).optional(),
  room_id: z.string().max(160).optional(),
  install_lanes_allowed: z
    .array(InstallLaneSchema.extract(["experimental_private", "approved_workspace", "shared_promoted"]))
    .default(["approved_workspace", "shared_promoted"]),
  include_private_owned_by_user: z.boolean().default(true),
  schema_version: z.literal(1),
});
/** §0C.11 */
export type AbilityLookupQuery = z.infer<typeof AbilityLookupQuerySchema>;

/**
 * The least text score of a match (the agent's wording matcher, agent/lookup/): calibrated on the
 * issue #15 evaluation set (BENCHMARKS.md), below it nothing is matched. Here because
 * `LOOKUP_SCORE_MEANING` states it.
 */
export const TEXT_MIN = 0.4;
/**
 * The text score from which an ability counts as fully worded for the request, as a full trigger
 * and title match does in §0C.11C (0.4 + 0.2): `score` gives its text part `TEXT_WEIGHT × min(1,
 * rank_text / FULL_TEXT)`, so that scope and lane weigh against a text difference as they do
 * against §0C.11C's text steps, and two abilities both fully worded are ordered by them.
 */
export const FULL_TEXT = 0.6;

/** What a lookup match's `score` means since issue #15 (the OpenAPI description says the same). */
export const LOOKUP_SCORE_MEANING = `The wording matcher's score in [0, 1]: 0.6 × how much of the request the ability's wording covers (its title, description, triggers, when-to-use lines and trigger tests; words matched by base form, as parts of a word WordNet does not list, as shortenings, or through WordNet's related words and the app vocabulary of the matcher's domain lexicon (cart/basket, log in/sign in, csv/spreadsheet…); a request's circumstance read for the action it implies ("where's my parcel": track), which ranks but never makes a match; each ability word counted once, weighed by how few installed abilities hold it; × 0.8 when the ability's title begins with an action unrelated to the request's), reaching 0.6 (§0C.11C's full trigger and title match) at a covered share of ${FULL_TEXT}, plus §0C.11C's scope, lane and checkpoint-health weights, halved when the ability is not usable now. A match needs a wording score (the same share, unweighed by rarity) of at least ${TEXT_MIN}; an ability whose title begins with the opposite of the request's action (WordNet's antonyms of the verb and their synonyms in the opposed sense, where both words usually have that sense, buy or purchase for "sell"; the domain lexicon's pairs, turn on for "turn off", add for "remove"; or the verb without its un-/de-/dis- prefix) is never matched.`;

/** Issue #34: the most abilities of `also_consider`. */
export const ALSO_CONSIDER_MAX = 5;
/**
 * Issue #34: the least cosine between a request and an ability's closest phrase for the ability to
 * be offered in `also_consider` on its meaning alone (sharing one of the request's own words is
 * enough too). Chosen on the lookup sets (BENCHMARKS.md, "Issue 34"): at 0.4 recall@5 over both
 * tiers is as at 0.3 or higher on every set but one (the second: one request fewer), and about a
 * third fewer unrelated requests get a tier.
 */
export const ALSO_CONSIDER_MIN_SIMILARITY = 0.4;
/**
 * Issue #34, third round: when fewer than `ALSO_CONSIDER_MAX` abilities reach the floor above, the
 * next closest fill the tier from this cosine (the floor the first round measured). On the tuned
 * sets the fill gained the same requests from 0.3 as from any positive cosine, and a person's
 * "Maybe you meant" then showed skills at a cosine of 0.05 (BENCHMARKS.md, "Issue 34, third round").
 */
export const ALSO_CONSIDER_FAINT_SIMILARITY = 0.3;

/** Issue #34: with this many abilities a lookup may return or fewer, an answer without matches lists them all (`all_abilities`). */
export const ALL_ABILITIES_UP_TO = 30;

/** One ability of `all_abilities`: what an assistant's model chooses by. */
export const AbilityDescribedSchema = z.object({
  ability_id: z.string().max(160),
  title: z.string().max(200),
  description: z.string().max(1024).optional(),
});

/** What `also_consider` means (issue #34; the OpenAPI description and README say the same). */
export const ALSO_CONSIDER_MEANING = `Up to ${ALSO_CONSIDER_MAX} abilities below the gate of \`matches\`, closest first (by the blend of wording and meaning \`score\` is made of, before its scope, lane and checkpoint weights, the meaning read as the mean cosine of the ability's two closest phrases), for a request worded far from them: each shares some meaning (its closest phrase reaches a cosine of ${ALSO_CONSIDER_MIN_SIMILARITY} with the request) or one of the request's own words (by base form) with the request; when fewer than ${ALSO_CONSIDER_MAX} do, the next closest in meaning (from a cosine of ${ALSO_CONSIDER_FAINT_SIMILARITY}) follow them, their \`reason\` saying they read only faintly close. Never an ability of \`matches\`, never one a hard gate refuses (quarantined, disabled, a lane not searched, a negative trigger, the opposite action). \`score\` is computed as for \`matches\` (the wording below the gate counted as it stands); \`reason\` says why it came up; \`confidence\` is always "low": let the person (or the assistant's model, from each ability's description) choose. Empty when nothing reaches that cosine or shares a word with the request.`;

/** Issue #34: one ability of lookup's second tier, below the gate of `matches` (`ALSO_CONSIDER_MEANING`). */
export const AbilityAlsoConsideredSchema = z.object({
  ability_id: z.string().max(160),
  score: z.number(),
  /** Why it came up, in plain words: the closest phrase by meaning, and the request's words it shares. */
  reason: z.string().max(600),
  /** What a model chooses by (issue #34): the ability's title, and its SKILL.md description when it has one. */
  title: z.string().max(200).optional(),
  description: z.string().max(1024).optional(),
  confidence: z.literal("low"),
  install_lane: z.string(),
  usable_now: z.boolean(),
  reason_unusable: z.string().optional(),
});
/** Issue #34 */
export type AbilityAlsoConsidered = z.infer<typeof AbilityAlsoConsideredSchema>;

/** §0C.11 Response of `POST /api/abilities/lookup`, best match first (the wording matcher, issue #15), then the low-confidence tier (issue #34). */
export const AbilityLookupResultSchema = z.object({
  matches: z.array(
    z.object({
      ability_id: z.string().max(160),
      score: z.number().describe(LOOKUP_SCORE_MEANING),
      install_lane: z.string(),
      usable_now: z.boolean(),
      reason_unusable: z.string().optional(),
    }),
  ),
  also_consider: z.array(AbilityAlsoConsideredSchema).max(ALSO_CONSIDER_MAX).default([]).describe(ALSO_CONSIDER_MEANING),
  all_abilities: z
    .array(AbilityDescribedSchema)
    .max(ALL_ABILITIES_UP_TO)
    .optional()
    .describe(
      `Issue #34: when nothing matches and at most ${ALL_ABILITIES_UP_TO} abilities could be returned for this query (enabled, not quarantined, in a lane searched), every one of them (id, title, SKILL.md description), so an assistant's model can choose among them; absent otherwise.`,
    ),
  created_at: z.string().datetime(),
  schema_version: z.literal(1),
});
/** §0C.11 */
export type AbilityLookupResult = z.infer<typeof AbilityLookupResultSchema>;

/**
 * §0C.11C `ScoredAbility`: one ability scored against a query, with the reasons behind the
 * score. The spec gives it as a TypeScript interface without limits, so none are added.
 */
export const ScoredAbilitySchema = z.object({
  ability_id: z.string(),
  score: z.number(),
  match_reasons: z.array(z.string()),
  install_lane: z.string(),
  usable_now: z.boolean(),
  reason_unusable: z.string().optional(),
});
/** §0C.11C */
export type ScoredAbility = z.infer<typeof ScoredAbilitySchema>;

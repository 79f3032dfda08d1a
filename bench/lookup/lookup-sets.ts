import type { AbilityAvailabilityEntry } from "../../shared/abilities/availability";
import { AbilityLookupQuerySchema, type AbilityLookupQuery } from "../../shared/abilities/lookup-contract";
import type { PageSnapshot } from "../../shared/observation/page-snapshot";
import type { LookupDocument } from "../../agent/lookup/wording/wording-score";
import { triggerPhrasings } from "../../agent/learning/compiler/triggers/trigger-phrasing";
import { DEV_ABILITIES, DEV_UNRELATED } from "./fixtures/lookup-dev.fixture";
import { EVAL_ABILITIES, EVAL_UNRELATED, type EvalAbility } from "./fixtures/lookup-eval.fixture";
import { FIFTH_ABILITIES, FIFTH_UNRELATED } from "./fixtures/lookup-fifth.fixture";
import { FOURTH_ABILITIES, FOURTH_UNRELATED } from "./fixtures/lookup-fourth.fixture";
import { HOLDOUT_ABILITIES, HOLDOUT_UNRELATED } from "./fixtures/lookup-holdout.fixture";
import { SIXTH_ABILITIES, SIXTH_UNRELATED } from "./fixtures/lookup-sixth.fixture";
import { SEVENTH_ABILITIES, SEVENTH_UNRELATED } from "./fixtures/lookup-seventh.fixture";
import { UNSEEN_ABILITIES, UNSEEN_UNRELATED } from "./fixtures/lookup-unseen.fixture";

/**
 * What the lookup benches share: the evaluation sets and how each is pooled, an evaluation ability
 * as the compiler makes it, the 10,000-ability snapshot, and the percentile both benches print.
 */

/** One evaluation set: its abilities among a pool of every earlier set's, its unrelated requests. */
export interface LookupSet {
  name: string;
  abilities: readonly EvalAbility[];
  unrelated: readonly string[];
  pool: readonly EvalAbility[];
  /** Studied while the matcher was made (its misses read); the others are held out. */
  tuned: boolean;
}

export const LOOKUP_SETS: readonly LookupSet[] = [
  { name: "first", abilities: EVAL_ABILITIES, unrelated: EVAL_UNRELATED, pool: EVAL_ABILITIES, tuned: true },
  { name: "development", abilities: DEV_ABILITIES, unrelated: DEV_UNRELATED, pool: [...EVAL_ABILITIES, ...DEV_ABILITIES], tuned: true },
  { name: "second", abilities: HOLDOUT_ABILITIES, unrelated: HOLDOUT_UNRELATED, pool: [...EVAL_ABILITIES, ...HOLDOUT_ABILITIES], tuned: true },
  {
    name: "third",
    abilities: UNSEEN_ABILITIES,
    unrelated: UNSEEN_UNRELATED,
    pool: [...EVAL_ABILITIES, ...HOLDOUT_ABILITIES, ...UNSEEN_ABILITIES],
    tuned: true,
  },
  // Issue #34: near-confusable pairs with the compiler's descriptions, looked up among themselves (as a person's own skills).
  { name: "seventh (pairs)", abilities: SEVENTH_ABILITIES, unrelated: SEVENTH_UNRELATED, pool: SEVENTH_ABILITIES, tuned: true },
  {
    name: "fourth (held out)",
    abilities: FOURTH_ABILITIES,
    unrelated: FOURTH_UNRELATED,
    pool: [...EVAL_ABILITIES, ...HOLDOUT_ABILITIES, ...UNSEEN_ABILITIES, ...DEV_ABILITIES, ...FOURTH_ABILITIES],
    tuned: false,
  },
  {
    name: "fifth (held out)",
    abilities: FIFTH_ABILITIES,
    unrelated: FIFTH_UNRELATED,
    pool: [...EVAL_ABILITIES, ...HOLDOUT_ABILITIES, ...UNSEEN_ABILITIES, ...DEV_ABILITIES, ...FOURTH_ABILITIES, ...FIFTH_ABILITIES],
    tuned: false,
  },
  {
    name: "sixth (held out)",
    abilities: SIXTH_ABILITIES,
    unrelated: SIXTH_UNRELATED,
    pool: [...EVAL_ABILITIES, ...HOLDOUT_ABILITIES, ...UNSEEN_ABILITIES, ...DEV_ABILITIES, ...FOURTH_ABILITIES, ...FIFTH_ABILITIES, ...SIXTH_ABILITIES],
    tuned: false,
  },
];

export const lookupQuery = (text: string): AbilityLookupQuery => AbilityLookupQuerySchema.parse({ user_query: text, schema_version: 1 });

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const LANES = ["experimental_private", "approved_workspace", "shared_promoted"] as const;

function snapshotOf(url: string, title: string, headings: readonly string[]): PageSnapshot {
  return {
    url,
    title,
    headings: headings.map((text) => ({ level: 1, text })),
    landmarks: [],
    dialogs: [],
    forms: [],
    buttons: [],
    links: [],
    status_messages: [],
    schema_version: 1,
  };
}

/**
 * An evaluation ability as the compiler makes it: title and description from the goal, triggers
 * from trigger-phrasing.ts (goal, site name, page headings, "when to use" lines), trigger tests as
 * emit-skill.ts writes them (the title and triggers, and three paraphrase templates of the title).
 */
export function compiledDocument(ability: EvalAbility, index: number, idSuffix = ""): LookupDocument {
  const pages = ability.pages.map((page, at) => ({
    url: `https://${ability.site}/page-${at}`,
    title: at === 0 ? `${page.title} – ${ability.site_title}` : page.title,
  }));
  const snapshots = new Map(ability.pages.map((page, at) => [`s${at}`, snapshotOf(pages[at]?.url ?? "", page.title, page.headings)]));
  const useConditions = ability.use_conditions ?? [];
  const triggers = triggerPhrasings({ title: ability.goal, useConditions, site: ability.site, pages, snapshots });
  const base = ability.goal.toLowerCase();
  const entry: AbilityAvailabilityEntry = {
    ability_id: `learned.${ability.id}${idSuffix}`,
    title: ability.goal,
    family: "browser",
    source: "learned",
    install_lane: LANES[index % LANES.length] as (typeof LANES)[number],
    enabled: true,
    usable_now: true,
    trigger_phrases: triggers,
    negative_triggers: [],
    aliases: [],
    project_scopes: [],
    preferred_control_surfaces: [],
    support_pack_refs: [],
    checkpoint_health: "no_data",
    schema_version: 1,
  };
  return {
    entry,
    description: ability.description ?? ability.goal,
    when_to_use: useConditions,
    trigger_tests: [...new Set([base, ...triggers])].slice(0, 5).concat([`could you ${base} for me`, `i need to ${base}`, `go ahead and ${base} now`]),
  };
}

const SUFFIXES = [
  "for the payroll team",
  "in the staging workspace",
  "for a client",
  "on the old portal",
  "for the sales region",
  "with the backup account",
  "for quarterly review",
  "at the branch office",
];

/** 10,000 abilities: the evaluation abilities, and variants of them on other sites with other wording. */
export function largeSnapshot(count: number): LookupDocument[] {
  return Array.from({ length: count }, (_, index) => {
    const ability = EVAL_ABILITIES[index % EVAL_ABILITIES.length] as EvalAbility;
    if (index < EVAL_ABILITIES.length) return compiledDocument(ability, index);
    const variant: EvalAbility = {
      ...ability,
      goal: `${ability.goal} ${SUFFIXES[index % SUFFIXES.length]}`,
      site: `site${index}.example.net`,
      site_title: `Portal ${index}`,
    };
    return compiledDocument(variant, index, `-${index}`);
  });
}

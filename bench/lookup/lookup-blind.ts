import { BLIND_ABILITIES, BLIND_UNRELATED } from "./fixtures/lookup-blind.fixture";
import { BLIND2_ABILITIES, BLIND2_UNRELATED } from "./fixtures/lookup-blind2.fixture";
import { BLIND3_ABILITIES, BLIND3_UNRELATED } from "./fixtures/lookup-blind3.fixture";
import { BLIND4_ABILITIES, BLIND4_UNRELATED } from "./fixtures/lookup-blind4.fixture";
import { BLIND5_ABILITIES, BLIND5_UNRELATED } from "./fixtures/lookup-blind5.fixture";
import { DEV_ABILITIES } from "./fixtures/lookup-dev.fixture";
import { EVAL_ABILITIES } from "./fixtures/lookup-eval.fixture";
import { HOLDOUT_ABILITIES } from "./fixtures/lookup-holdout.fixture";
import { compiledDocument } from "./lookup-sets";
import { UNSEEN_ABILITIES } from "./fixtures/lookup-unseen.fixture";
import { FOURTH_ABILITIES } from "./fixtures/lookup-fourth.fixture";
import { createBaselineIndex } from "./baseline/baseline-index";
import { AbilityLookupQuerySchema, type AbilityLookupQuery } from "../../shared/abilities/lookup-contract";
import { loadWordNetLexicon } from "../../agent/lookup/lexicon/wordnet-lexicon";
import { withDomainPhrasing } from "../../agent/lookup/wording/wording-domain";
import { createSentenceEncoder } from "../../agent/lookup/meaning/sentence-encoder";
import { blendedLookupOver, tierQualityOf } from "./blended-lookup";
import { withOneTypo } from "./lookup-typos";

// `node --import tsx bench/lookup/lookup-blind.ts`: the blind sets' figures only (issue #15); never their misses.
// Every blind set's abilities are in the pool (the third's since 19:20Z on 2026-11-24, the fourth's since
// 22:34Z, the fifth's since 01:30Z on 2026-11-25: 16, 20 and 20 more distractors for the sets before
// them), so each earlier set's figures have more distractors than when it was written (round four's
// figures were taken without the second set).
// The lexicon as the agent's lookup service reads it (WordNet with our domain's phrasing).
const lexicon = withDomainPhrasing(await loadWordNetLexicon());
const all = [
  ...EVAL_ABILITIES,
  ...DEV_ABILITIES,
  ...HOLDOUT_ABILITIES,
  ...UNSEEN_ABILITIES,
  ...FOURTH_ABILITIES,
  ...BLIND_ABILITIES,
  ...BLIND2_ABILITIES,
  ...BLIND3_ABILITIES,
  ...BLIND4_ABILITIES,
  ...BLIND5_ABILITIES,
].map((a, i) => compiledDocument(a, i));
const BLIND_SETS = [
  ["blind set", BLIND_ABILITIES, BLIND_UNRELATED],
  ["second blind set", BLIND2_ABILITIES, BLIND2_UNRELATED],
  ["third blind set", BLIND3_ABILITIES, BLIND3_UNRELATED],
  ["fourth blind set", BLIND4_ABILITIES, BLIND4_UNRELATED],
  ["fifth blind set", BLIND5_ABILITIES, BLIND5_UNRELATED],
] as const;
const blended = await blendedLookupOver(all, lexicon, createSentenceEncoder());
const scorers = [
  ["wording + meaning (the agent's lookup)", (request: AbilityLookupQuery) => blended.lookup(request)],
  ["wording matcher alone", async (request: AbilityLookupQuery) => blended.wording.lookup(request)],
  ["§0C.11C", async (request: AbilityLookupQuery) => baseline.lookup(request)],
] as const;
const baseline = createBaselineIndex(all.map((d) => d.entry));
type Lookup = (request: AbilityLookupQuery) => Promise<ReadonlyArray<{ ability_id: string }>>;
/** How often one lookup finds each request's ability first and in its top three, over `requestsOf` each ability's requests. */
async function topHits(
  lookup: Lookup,
  abilities: readonly { id: string; requests: readonly string[] }[],
  requestsOf: (requests: readonly string[]) => readonly string[],
) {
  let top1 = 0,
    top3 = 0,
    total = 0;
  for (const ability of abilities)
    for (const request of requestsOf(ability.requests)) {
      const ids = (await lookup(AbilityLookupQuerySchema.parse({ user_query: request, schema_version: 1 }))).map((m) => m.ability_id);
      total += 1;
      if (ids[0] === `learned.${ability.id}`) top1 += 1;
      if (ids.slice(0, 3).includes(`learned.${ability.id}`)) top3 += 1;
    }
  return { p1: (top1 / total).toFixed(3), r3: (top3 / total).toFixed(3), total };
}
for (const [name, lookup] of scorers) {
  for (const [setName, abilities, unrelatedRequests] of BLIND_SETS) {
    const { p1, r3, total } = await topHits(lookup, abilities, (requests) => requests);
    let unrelated = 0;
    for (const request of unrelatedRequests)
      if ((await lookup(AbilityLookupQuerySchema.parse({ user_query: request, schema_version: 1 }))).length > 0) unrelated += 1;
    console.log(
      `${name}: ${setName} (${abilities.length} abilities among ${all.length}, ${total} requests) p@1 ${p1} recall@3 ${r3} unrelated matched ${unrelated}/${unrelatedRequests.length}`,
    );
  }
}
// Issue #34: recall@5 over matches + also_consider (one list, matches first), beside matches alone;
// unrelated requests' matches must stay as above (they may get an also_consider).
for (const [setName, abilities, unrelatedRequests] of BLIND_SETS) {
  const tiers = await tierQualityOf({ abilities, unrelated: unrelatedRequests }, (request) => blended.tiers(request));
  console.log(
    `wording + meaning with also_consider: ${setName} recall@5 ${tiers.recall5.toFixed(3)} (matches alone ${tiers.matchesRecall5.toFixed(3)}) unrelated matched ${tiers.unrelatedMatched}/${tiers.unrelatedCount}, with any also_consider ${tiers.unrelatedConsidered}/${tiers.unrelatedCount}`,
  );
}
// Ninth round: one typo in each request (`lookup-typos.ts`), read with its typos mended and as typed.
for (const [name, lookup] of [
  ["with one typo in each request, typos mended", (request: AbilityLookupQuery) => blended.lookup(request)],
  ["with one typo in each request, read as typed", (request: AbilityLookupQuery) => blended.lookupAsTyped(request)],
] as const) {
  for (const [setName, abilities] of BLIND_SETS) {
    const { p1, r3 } = await topHits(lookup, abilities, withOneTypo);
    console.log(`wording + meaning ${name}: ${setName} p@1 ${p1} recall@3 ${r3}`);
  }
}

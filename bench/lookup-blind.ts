import { BLIND_ABILITIES, BLIND_UNRELATED } from "./lookup-blind.fixture";
import { DEV_ABILITIES } from "./lookup-dev.fixture";
import { EVAL_ABILITIES } from "./lookup-eval.fixture";
import { HOLDOUT_ABILITIES } from "./lookup-holdout.fixture";
import { compiledDocument } from "./lookup-quality.bench";
import { UNSEEN_ABILITIES } from "./lookup-unseen.fixture";
import { FOURTH_ABILITIES } from "./lookup-fourth.fixture";
import { createWordingIndex } from "../shared/abilities/wording-index";
import { createBaselineIndex } from "../shared/abilities/baseline-index";
import { AbilityLookupQuerySchema } from "../shared/abilities/lookup-contract";
import { loadWordNetLexicon } from "../agent/abilities/wordnet-lexicon";
import { withDomainPhrasing } from "../shared/abilities/wording-domain";

// `node --import tsx bench/lookup-blind.ts`: the blind set's figures only (issue #15); never its misses.
// The lexicon as the agent's lookup service reads it (WordNet with our domain's phrasing).
const lexicon = withDomainPhrasing(await loadWordNetLexicon());
const all = [...EVAL_ABILITIES, ...DEV_ABILITIES, ...HOLDOUT_ABILITIES, ...UNSEEN_ABILITIES, ...FOURTH_ABILITIES, ...BLIND_ABILITIES].map((a, i) => compiledDocument(a, i));
for (const [name, index] of [["wording matcher", createWordingIndex(all, lexicon)], ["§0C.11C", createBaselineIndex(all.map((d) => d.entry))]] as const) {
  let top1 = 0, top3 = 0, total = 0;
  for (const ability of BLIND_ABILITIES) for (const request of ability.requests) {
    const ids = index.lookup(AbilityLookupQuerySchema.parse({ user_query: request, schema_version: 1 })).map((m: { ability_id: string }) => m.ability_id);
    total += 1;
    if (ids[0] === `learned.${ability.id}`) top1 += 1;
    if (ids.slice(0, 3).includes(`learned.${ability.id}`)) top3 += 1;
  }
  const unrelated = BLIND_UNRELATED.filter((r) => index.lookup(AbilityLookupQuerySchema.parse({ user_query: r, schema_version: 1 })).length > 0).length;
  console.log(`${name}: blind set (${BLIND_ABILITIES.length} abilities among ${all.length}, ${total} requests) p@1 ${(top1 / total).toFixed(3)} recall@3 ${(top3 / total).toFixed(3)} unrelated matched ${unrelated}/${BLIND_UNRELATED.length}`);
}

import type { z } from "zod";
import { AbilityAvailabilityEntrySchema, type AbilityAvailabilityEntry } from "../../shared/abilities/availability";
import { AbilityLookupQuerySchema, type AbilityLookupQuery } from "../../shared/abilities/lookup-contract";

/**
 * An ability the §0C.11C scorer gives only 0.03: private lane, scoped to a project the tests never
 * query (no scope bonus), a title no query shares two tokens with. Anything above 0.03 comes from
 * the rule under test (baseline-scorer.test.ts, bench/lookup/baseline/baseline-index.test.ts).
 */
export function baselineEntry(over: Partial<z.input<typeof AbilityAvailabilityEntrySchema>> = {}): AbilityAvailabilityEntry {
  return AbilityAvailabilityEntrySchema.parse({
    ability_id: "ability-1",
    title: "Zzz",
    family: "web",
    source: "learned",
    install_lane: "experimental_private",
    enabled: true,
    usable_now: true,
    project_scopes: ["elsewhere"],
    schema_version: 1,
    ...over,
  });
}

/** A lookup query of unrelated words unless told otherwise. */
export function baselineQuery(over: Partial<z.input<typeof AbilityLookupQuerySchema>> = {}): AbilityLookupQuery {
  return AbilityLookupQuerySchema.parse({ user_query: "unrelated words", schema_version: 1, ...over });
}

/** An enabled browser ability, usable now, in the approved lane: the usual candidate of a lookup test. */
export function usableEntry(over: Partial<z.input<typeof AbilityAvailabilityEntrySchema>>): AbilityAvailabilityEntry {
  return AbilityAvailabilityEntrySchema.parse({
    family: "browser",
    source: "learned",
    install_lane: "approved_workspace",
    enabled: true,
    usable_now: true,
    schema_version: 1,
    ...over,
  });
}

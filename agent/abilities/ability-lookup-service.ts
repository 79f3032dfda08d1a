import type { AbilityAvailabilityEntry, AbilityAvailabilitySnapshot } from "../../shared/abilities/availability";
import {
  ALL_ABILITIES_UP_TO,
  AbilityLookupQuerySchema,
  type AbilityAlsoConsidered,
  type AbilityLookupQuery,
  type AbilityLookupResult,
} from "../../shared/abilities/lookup-contract";
import { lookupTiers } from "../lookup/meaning/also-consider";
import { withDomainPhrasing } from "../lookup/wording/wording-domain";
import type { Lexicon } from "../lookup/lexicon/wording-lexicon";
import { createWordingIndex, type WordingIndex } from "../lookup/wording/wording-index";
import {
  createMeaningIndex,
  explainBlended,
  lookupReading,
  meaningPhrases,
  meaningText,
  type BlendedMatch,
  type MeaningIndex,
} from "../lookup/meaning/meaning-index";
import { explainWording, type WordingExplanation } from "../lookup/wording/wording-matcher";
import type { LookupDocument } from "../lookup/wording/wording-score";
import { spellingReason } from "../lookup/wording/wording-spelling";
import { wordingRejection } from "../lookup/wording/wording-gates";
import { ProposalTriggerTestsSchema } from "../../shared/learning/proposal-tests";
import { parseSkillFrontmatter } from "../../shared/skills/frontmatter";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";
import type { SentenceEncoder } from "../lookup/meaning/sentence-encoder";

/** The lookup route's answer: both tiers, each candidate with what a model chooses by, and every ability when few (issue #34). */
export type LookupTiersAnswer = Pick<AbilityLookupResult, "matches" | "also_consider" | "all_abilities">;

/**
 * Issue #34: what an assistant's model chooses by, from what the snapshot's index already read (no
 * SKILL.md read per candidate): each candidate's title and description, and, when nothing matches and
 * at most `ALL_ABILITIES_UP_TO` abilities pass the query's hard gates, every one of them.
 */
function describedTiers(
  query: AbilityLookupQuery,
  documents: readonly LookupDocument[],
  matches: LookupTiersAnswer["matches"],
  also: readonly AbilityAlsoConsidered[],
): LookupTiersAnswer {
  const byId = new Map(documents.map((document) => [document.entry.ability_id, document]));
  const described = (document: LookupDocument) => ({
    title: document.entry.title,
    ...(document.description === undefined || document.description.length === 0 ? {} : { description: document.description.slice(0, 1024) }),
  });
  const also_consider = also.map((item) => {
    const document = byId.get(item.ability_id);
    return document === undefined ? item : { ...item, ...described(document) };
  });
  if (matches.length > 0) return { matches, also_consider };
  const open = documents.filter((document) => wordingRejection(query, document.entry) === undefined);
  if (open.length > ALL_ABILITIES_UP_TO) return { matches, also_consider };
  return { matches, also_consider, all_abilities: open.map((document) => ({ ability_id: document.entry.ability_id, ...described(document) })) };
}

export interface AbilityLookupServiceDeps {
  memory: MemoryStore;
  /** The current availability snapshot (the ability service's). */
  snapshot(): Promise<{ snapshot: AbilityAvailabilitySnapshot }>;
  /** The lexical resource, loaded on the first lookup; the matcher reads it with our domain's phrasing (wording-domain.ts). */
  lexicon: { load(): Promise<Lexicon> };
  /** Sentence vectors (issue #15, eighth round); without it, or when its model cannot load, lookup ranks by wording alone. */
  encoder?: SentenceEncoder;
}

export interface AbilityLookupService {
  /** §0C.11 `matches`, ranked by the wording matcher (issue #15). */
  lookup(query: AbilityLookupQuery): Promise<AbilityLookupResult["matches"]>;
  /** The lookup route's answer: the same `matches`, and the low-confidence tier below them (issue #34). */
  lookupTiers(query: AbilityLookupQuery): Promise<LookupTiersAnswer>;
  /** The wording matcher's verdict on one ability; undefined when the snapshot has no such ability. */
  explain(query: AbilityLookupQuery, abilityId: string): Promise<WordingExplanation | undefined>;
  /**
   * The same lookup over the current snapshot with `candidate` in place of any ability of its id:
   * would this request find an ability that is not installed yet (an import's trigger test)?
   */
  lookupWith(candidate: AbilityAvailabilityEntry, query: AbilityLookupQuery): Promise<AbilityLookupResult["matches"]>;
  /**
   * Lookup's verdict (wording and meaning) on a request for one ability alone, from its entry only
   * (a proposal's trigger tests at validation): its trigger tests are not part of its wording, so a
   * test can never find itself. Loads the lexicon and reads the entry's phrases once.
   */
  verdictsFor(entry: AbilityAvailabilityEntry): Promise<(request: string) => Promise<WordingExplanation>>;
}

/** The "When to use" lines of a SKILL.md, as written (emit-skill.ts escapes Markdown with backslashes). */
export function whenToUseLines(markdown: string): string[] {
  const section = /^## When to use\s*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(markdown)?.[1] ?? "";
  return section
    .split("\n")
    .filter((line) => line.startsWith("- "))
    .map((line) => line.slice(2).replace(/\\(.)/g, "$1").trim())
    .filter((line) => line.length > 0);
}

/** An ability's wording as lookup reads it: its entry, and its installed SKILL.md and trigger tests when they can be read. */
/** How many abilities' files are read at once while the index is built. */
const DOCUMENT_READS_AT_ONCE = 64;

/**
 * Every ability's lookup document, in the snapshot's order, read a few at a time (issue 32: at
 * 10,000 abilities, reading them all at once ran out of file handles, EMFILE, and the first lookup
 * answered 500).
 */
async function documentsOf(
  entries: readonly AbilityAvailabilityEntry[],
  documentOf: (entry: AbilityAvailabilityEntry) => Promise<LookupDocument>,
): Promise<LookupDocument[]> {
  const documents: LookupDocument[] = [];
  for (let start = 0; start < entries.length; start += DOCUMENT_READS_AT_ONCE) {
    documents.push(...(await Promise.all(entries.slice(start, start + DOCUMENT_READS_AT_ONCE).map(documentOf))));
  }
  return documents;
}

async function lookupDocumentOf(memory: MemoryStore, entry: AbilityAvailabilityEntry): Promise<LookupDocument> {
  if (entry.skill_slug === undefined) return { entry };
  let folder: string;
  try {
    folder = MemoryPaths.installedSkill(entry.skill_slug);
  } catch {
    return { entry };
  }
  const [markdown, tests] = await Promise.all([
    memory.readText(`${folder}/SKILL.md`).catch(() => undefined),
    memory.readText(`${folder}/tests/trigger-tests.json`).catch(() => undefined),
  ]);
  let parsedTests: unknown;
  try {
    parsedTests = tests === undefined ? undefined : JSON.parse(tests);
  } catch {
    parsedTests = undefined;
  }
  const triggerTests = ProposalTriggerTestsSchema.safeParse(parsedTests);
  return {
    entry,
    description: markdown === undefined ? undefined : parseSkillFrontmatter(markdown)?.description,
    when_to_use: markdown === undefined ? [] : whenToUseLines(markdown),
    trigger_tests: triggerTests.success ? [...triggerTests.data.positive, ...triggerTests.data.paraphrases] : [],
  };
}

/** The meaning of the abilities' phrases: none when there is no encoder or its model cannot load. */
async function meaningIndexOf(encoder: SentenceEncoder | undefined, documents: readonly LookupDocument[]): Promise<MeaningIndex | undefined> {
  if (encoder === undefined) return undefined;
  const phrases = [...new Set(documents.flatMap(meaningPhrases))];
  try {
    const vectors = await encoder.encode(phrases);
    const byPhrase = new Map(phrases.map((phrase, at) => [phrase, vectors[at] as Float32Array]));
    return createMeaningIndex(documents, (phrase) => byPhrase.get(phrase));
  } catch {
    return undefined;
  }
}

/** The request's vector: none when there is no encoder or its model cannot load. */
async function requestVectorOf(encoder: SentenceEncoder | undefined, query: AbilityLookupQuery): Promise<Float32Array | undefined> {
  if (encoder === undefined) return undefined;
  try {
    return (await encoder.encode([meaningText(query.user_query)], { keep: false }))[0];
  } catch {
    return undefined;
  }
}

/**
 * Building a snapshot's indexes reads every installed ability's files and WordNet's table, and leaves
 * their garbage: V8 let the agent keep it (at 1,000 abilities, 226 MB of RSS after 30 lookups). It is
 * collected once both indexes are built for a lookup (issue 32: 192 MB; `bench/agent/agent-memory.bench.ts`), as the
 * agent collects its start-up's before it listens. `npm start` runs node with --expose-gc
 * (agent/agent-bundle.ts); without it, nothing happens.
 */
function collectBuildGarbage(): void {
  setImmediate(() => (globalThis as { gc?: () => void }).gc?.());
}

/** One snapshot's lookup documents and indexes; `meaning` is built when a lookup first needs it. */
interface SnapshotIndexes {
  of: AbilityAvailabilitySnapshot;
  documents: Promise<LookupDocument[]>;
  index: Promise<WordingIndex>;
  meaning: () => Promise<MeaningIndex | undefined>;
}

/** What the lookup service's operations share: its deps and the indexes of the current snapshot. */
interface LookupState {
  deps: AbilityLookupServiceDeps;
  current: SnapshotIndexes | undefined;
}

const loadLexiconOf = (state: LookupState) => state.deps.lexicon.load().then(withDomainPhrasing);
const requestVectorFor = (state: LookupState) => (query: AbilityLookupQuery) => requestVectorOf(state.deps.encoder, query);

/** Wording and meaning together over one set of documents (lookup's answer). */
async function blendedLookup(state: LookupState, index: WordingIndex, meaning: MeaningIndex | undefined, asked: AbilityLookupQuery) {
  return (await lookupReading(index, meaning, asked, requestVectorFor(state))).map(
    ({ text: _text, rank_text: _rankText, meaning: _meaning, ...match }) => match,
  );
}

/** The indexes of the current snapshot, built when it is new. */
async function currentFor(state: LookupState): Promise<SnapshotIndexes> {
  const { snapshot } = await state.deps.snapshot();
  if (state.current?.of !== snapshot) {
    const documents = documentsOf(snapshot.abilities, (entry) => lookupDocumentOf(state.deps.memory, entry));
    const building = Promise.all([loadLexiconOf(state), documents]).then(([lexicon, read]) => createWordingIndex(read, lexicon));
    let meaning: Promise<MeaningIndex | undefined> | undefined;
    const meaningOnce = () => {
      if (meaning === undefined) {
        meaning = documents.then((read) => meaningIndexOf(state.deps.encoder, read));
        void Promise.all([building, meaning]).then(collectBuildGarbage, () => undefined);
      }
      return meaning;
    };
    state.current = { of: snapshot, documents, index: building, meaning: meaningOnce };
    // A failed build (the lexicon could not be read) is not kept: the next lookup tries again.
    building.catch(() => {
      if (state.current?.index === building) state.current = undefined;
    });
  }
  return state.current;
}

/** The wording matcher's verdict on one ability, with meaning's when it was read. */
async function explainOne(state: LookupState, asked: AbilityLookupQuery, abilityId: string): Promise<WordingExplanation | undefined> {
  const found = await currentFor(state);
  const [index, meaning, documents] = await Promise.all([found.index, found.meaning(), found.documents]);
  const { query, corrections } = index.readSpelling(asked);
  const read = index.explain(query, abilityId);
  const mended = spellingReason(corrections);
  const wording = read === undefined || mended === undefined ? read : { ...read, reasons: [mended, ...read.reasons] };
  const entry = documents.find((document) => document.entry.ability_id === abilityId)?.entry;
  if (wording === undefined || entry === undefined) return wording;
  const unavailable = state.deps.encoder?.unavailable();
  if (meaning === undefined)
    return unavailable === undefined
      ? wording
      : {
          ...wording,
          reasons: [...wording.reasons, `meaning: not read (the sentence encoder could not be loaded: ${unavailable}); ranked by wording alone`],
        };
  const vector = await requestVectorOf(state.deps.encoder, query);
  const close = vector === undefined ? undefined : meaning.closenessOf(vector, abilityId);
  return explainBlended(query, entry, wording, close, index.refusal(query)(abilityId, true));
}

/** Lookup's verdict on requests for one ability alone, from its entry only. */
async function verdictsOf(state: LookupState, entry: AbilityAvailabilityEntry): Promise<(request: string) => Promise<WordingExplanation>> {
  const lexicon = await loadLexiconOf(state);
  const alone = [{ entry }];
  const [index, meaning] = [createWordingIndex(alone, lexicon), await meaningIndexOf(state.deps.encoder, alone)];
  return async (request) => {
    const asked = AbilityLookupQuerySchema.parse({
      user_query: request.slice(0, 500),
      install_lanes_allowed: ["experimental_private", "approved_workspace", "shared_promoted"],
      schema_version: 1,
    });
    const { query } = index.readSpelling(asked);
    const wording = explainWording(query, { entry }, lexicon);
    const vector = meaning === undefined ? undefined : await requestVectorOf(state.deps.encoder, query);
    const close = vector === undefined ? undefined : meaning?.closenessOf(vector, entry.ability_id);
    return explainBlended(query, entry, wording, close, index.refusal(query)(entry.ability_id, true));
  };
}

/**
 * Lookups through the wording matcher (issue #15). Its index is built once per availability
 * snapshot, from each ability's entry and its installed SKILL.md (description, "When to use") and
 * trigger tests; an ability whose files cannot be read is matched on its entry alone.
 */
export function createAbilityLookupService(deps: AbilityLookupServiceDeps): AbilityLookupService {
  // Keyed by the snapshot object, as the availability route's entity tag is: a new snapshot, a new index.
  // `meaning` is read when a lookup first needs it (never in the background: its phrase vectors are
  // written to ELNOR_MEMORY, and a request that did not ask for them must not leave writes behind).
  const state: LookupState = { deps, current: undefined };
  return {
    async lookup(query) {
      const found = await currentFor(state);
      const [index, meaning] = await Promise.all([found.index, found.meaning()]);
      return blendedLookup(state, index, meaning, query);
    },
    async lookupTiers(query) {
      const found = await currentFor(state);
      const [index, meaning, documents] = await Promise.all([found.index, found.meaning(), found.documents]);
      const tiers = await lookupTiers(index, meaning, query, requestVectorFor(state));
      const matches = tiers.matches.map(({ text: _text, rank_text: _rankText, meaning: _meaning, ...match }: BlendedMatch) => match);
      return describedTiers(query, documents, matches, tiers.also_consider);
    },
    explain: (asked, abilityId) => explainOne(state, asked, abilityId),
    async lookupWith(candidate, query) {
      const [lexicon, documents] = await Promise.all([loadLexiconOf(state), currentFor(state).then((found) => found.documents)]);
      const others = documents.filter((document) => document.entry.ability_id !== candidate.ability_id);
      const withCandidate = [...others, await lookupDocumentOf(deps.memory, candidate)];
      return blendedLookup(state, createWordingIndex(withCandidate, lexicon), await meaningIndexOf(deps.encoder, withCandidate), query);
    },
    verdictsFor: (entry) => verdictsOf(state, entry),
  };
}

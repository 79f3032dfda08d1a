import { randomUUID } from "node:crypto";
import type { GrantOffer, RunGrant, StandingGrantTerms, StoredRunGrant } from "../../../shared/execution/run-grants";
import type { Clock } from "../../common/clock";
import { AppError } from "../../errors/app-error";
import type { MemoryStore } from "../../memory/memory-store";
import type { ConfirmationRequest } from "../contract/executor-contract";
import { inputKeyedHash, loadOrCreateGrantKey } from "./grant-key";
import { openGrantStore } from "./grant-store";

/**
 * The one module that answers "is this step allowed now?" (issue #33). It knows the standing
 * grants and, through the `ask` it is given, the person: a step that a grant covers — every term
 * holds — goes on without asking and the use is logged; any other step is asked about, with the
 * terms a grant for it would have (its offer). Input values reach it only for the length of a run,
 * to be hashed under the install's key; they are never kept.
 */

/** What a run tells the approvals about itself; `values` live only in memory, for the run. */
export interface RunFacts {
  dispatch_id: string;
  ability_id: string;
  ability_title: string;
  /** The installed skill's version; a skill without one cannot be allowed for good. */
  skill_version: string | undefined;
  values: Readonly<Record<string, string>>;
  /** Inputs that are secret: never part of a grant's terms. */
  secret_names: ReadonlySet<string>;
  /** Cuts the run's input values out of a text (the step label a grant keeps). */
  scrub: (text: string) => string;
}

/** Everything a grant for the step asked about would hold: the offer the panel shows, plus the keyed hashes (memory only). */
export interface GrantBasis {
  offer: GrantOffer;
  dispatch_id: string;
  ability_id: string;
  ability_title: string;
  step_label: string;
  input_hashes: Record<string, string>;
}

/** Asks the person; `basis` is absent when the step cannot be allowed for good. */
export type AskPerson = (request: ConfirmationRequest, basis: GrantBasis | undefined) => Promise<boolean>;

export interface Approvals {
  /** The executor's `confirm` for one run: a grant's yes, or the person's answer. `onGranted` hears which grant let a step through. */
  confirmer(facts: RunFacts, ask: AskPerson, onGranted: (stepId: string, grantId: string) => void): (request: ConfirmationRequest) => Promise<boolean>;
  /** "Always allow": checks the chosen terms against the step (nothing written when they do not hold), then keeps the grant. */
  grant(basis: GrantBasis, terms: StandingGrantTerms): Promise<RunGrant>;
  /** An ability's grants, newest first, revoked ones left out. */
  list(abilityId: string): RunGrant[];
  /** Revokes at once; RUN_GRANT_NOT_FOUND for a grant this ability does not have. */
  revoke(abilityId: string, grantId: string): Promise<RunGrant>;
  /** The ability was deleted: every grant of it is revoked. */
  revokeAbility(abilityId: string): Promise<number>;
}

export interface ApprovalsDeps {
  memory: MemoryStore;
  clock: Clock;
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item) => b.includes(item));

function stateOf(grant: StoredRunGrant, now: Date): RunGrant["state"] {
  if (grant.revoked_at !== undefined) return "revoked";
  if (grant.expires_at !== undefined && Date.parse(grant.expires_at) <= now.getTime()) return "expired";
  return "active";
}

export function publicGrant(grant: StoredRunGrant, now: Date): RunGrant {
  const { input_hashes: _hashes, ...rest } = grant;
  return { ...rest, state: stateOf(grant, now) };
}

/** Whether every term of the grant holds for this step of this run. */
function covers(grant: StoredRunGrant, basis: GrantBasis, now: Date): boolean {
  const { offer } = basis;
  if (stateOf(grant, now) !== "active") return false;
  if (grant.ability_id !== basis.ability_id || grant.skill_version !== offer.skill_version) return false;
  if (grant.step_id !== offer.step_id || grant.step_label !== basis.step_label || grant.site_host !== offer.site_host) return false;
  if (!offer.consequence_classes.every((kind) => grant.consequence_classes.includes(kind))) return false;
  if (grant.inputs === "any") return true;
  const hashes = grant.input_hashes ?? {};
  return sameSet(grant.input_names, offer.input_names) && grant.input_names.every((name) => hashes[name] === basis.input_hashes[name]);
}

/** The grant a step would get (its offer, plus the keyed hashes of its inputs); undefined when it cannot be allowed for good. */
function basisOf(key: Buffer, facts: RunFacts, request: ConfirmationRequest): GrantBasis | undefined {
  if (facts.skill_version === undefined || request.site_host === undefined) return undefined;
  const names = Object.keys(facts.values)
    .filter((name) => !facts.secret_names.has(name))
    .sort();
  const input_hashes: Record<string, string> = {};
  for (const name of names) input_hashes[name] = inputKeyedHash(key, facts.ability_id, name, facts.values[name] ?? "");
  return {
    offer: {
      skill_version: facts.skill_version,
      step_id: request.step_id.slice(0, 160),
      site_host: request.site_host.slice(0, 200),
      input_names: names,
      consequence_classes: request.consequence_classes ?? [],
    },
    dispatch_id: facts.dispatch_id,
    ability_id: facts.ability_id,
    ability_title: facts.ability_title,
    step_label: facts.scrub(request.step_label).slice(0, 240),
    input_hashes,
  };
}

/** The grant the chosen terms make for the step; REQUEST_INVALID when they do not hold (nothing is written then). */
function grantOf(basis: GrantBasis, terms: StandingGrantTerms, now: Date): StoredRunGrant {
  const missing = basis.offer.consequence_classes.filter((kind) => !terms.consequence_classes.includes(kind));
  if (missing.length > 0)
    throw new AppError(
      "REQUEST_INVALID",
      `This step ${missing.join(" and ")}: a standing grant covers it only when ${missing.length === 1 ? "that class is" : "those classes are"} ticked (consequence_classes).`,
    );
  if (terms.expires_at !== undefined && Date.parse(terms.expires_at) <= now.getTime())
    throw new AppError("REQUEST_INVALID", "expires_at must be in the future.");
  return {
    grant_id: `grant-${randomUUID()}`,
    ability_id: basis.ability_id,
    ability_title: basis.ability_title.slice(0, 160),
    skill_version: basis.offer.skill_version,
    step_id: basis.offer.step_id,
    step_label: basis.step_label,
    site_host: basis.offer.site_host,
    inputs: terms.inputs,
    input_names: terms.inputs === "exact" ? basis.offer.input_names : [],
    ...(terms.inputs === "exact" ? { input_hashes: basis.input_hashes } : {}),
    consequence_classes: [...new Set(terms.consequence_classes)].filter((kind) => basis.offer.consequence_classes.includes(kind)),
    created_from_dispatch_id: basis.dispatch_id,
    created_at: now.toISOString(),
    ...(terms.expires_at === undefined ? {} : { expires_at: new Date(terms.expires_at).toISOString() }),
    use_count: 0,
    schema_version: 1,
  };
}

export async function createApprovals(deps: ApprovalsDeps): Promise<Approvals> {
  const key = await loadOrCreateGrantKey(deps.memory);
  const store = await openGrantStore(deps.memory);
  const now = () => deps.clock.now();

  const revokeOne = async (grant: StoredRunGrant, reason: "person" | "ability_deleted") => {
    if (grant.revoked_at === undefined)
      await store.record({ event: "grant.revoked", grant_id: grant.grant_id, ability_id: grant.ability_id, reason, at: now().toISOString() });
  };

  return {
    confirmer: (facts, ask, onGranted) => async (request) => {
      const basis = basisOf(key, facts, request);
      const grant = basis === undefined ? undefined : store.all().find((candidate) => covers(candidate, basis, now()));
      if (grant === undefined) return ask(request, basis);
      await store.record({
        event: "grant.used",
        grant_id: grant.grant_id,
        ability_id: grant.ability_id,
        dispatch_id: facts.dispatch_id,
        step_id: grant.step_id,
        at: now().toISOString(),
      });
      onGranted(request.step_id, grant.grant_id);
      return true;
    },
    async grant(basis, terms) {
      const grant = grantOf(basis, terms, now());
      await store.record({ event: "grant.created", grant, at: grant.created_at });
      return publicGrant(grant, now());
    },
    list: (abilityId) =>
      store
        .all()
        .filter((grant) => grant.ability_id === abilityId && grant.revoked_at === undefined)
        .sort((a, b) => b.created_at.localeCompare(a.created_at))
        .map((grant) => publicGrant(grant, now())),
    async revoke(abilityId, grantId) {
      const grant = store.get(grantId);
      if (grant === undefined || grant.ability_id !== abilityId)
        throw new AppError("RUN_GRANT_NOT_FOUND", `The ability ${abilityId.slice(0, 160)} has no grant ${grantId.slice(0, 60)}.`);
      await revokeOne(grant, "person");
      return publicGrant(store.get(grantId) ?? grant, now());
    },
    async revokeAbility(abilityId) {
      const live = store.all().filter((grant) => grant.ability_id === abilityId && grant.revoked_at === undefined);
      for (const grant of live) await revokeOne(grant, "ability_deleted");
      return live.length;
    },
  };
}

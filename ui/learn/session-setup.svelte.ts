import type { LearnSession } from "../../shared/learning/sessions/learn-session";
import { DesktopAdaptersState } from "../desktop/desktop-adapters.svelte";
import { failureCode, describeFailure } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";
import type { SetupEntryMode } from "../common/learn-navigation.svelte";
import { defaultSetupForm, planSetup, setupProblems, type SetupForm } from "./setup-plan";
import { normalizeSiteEntry } from "../common/site-entry";
import { siteFromUrl } from "../../shared/observation/site-allowlist";
import { seedOfReceipt, seedOfSession, type SetupSeed } from "../common/trace-seed-view";

export interface SessionSetupOptions {
  /**
   * The session exists, its masking and test policy are set: hand it over with the pending
   * answer to the site-access request that was made inside the click.
   */
  onCreated(session: LearnSession, access: Promise<boolean>): void;
  /** "Another learning session is still open": show it. */
  onShowActive(): void;
  newId?: () => string;
}

/** Session set-up for Demonstrating Skill and Improving Existing Skill (issue #7). */
export class SessionSetupState {
  form = $state<SetupForm>(defaultSetupForm("demonstrating_skill", []));
  siteDraft = $state("");
  siteError = $state<string | null>(null);
  domainDraft = $state("");
  domainError = $state<string | null>(null);
  /** Set at the first Start: from then on the problems follow the form as it is edited. */
  attempted = $state(false);
  problems = $derived(this.attempted ? setupProblems(this.form) : []);
  busy = $state(false);
  error = $state<string | null>(null);
  /** Installed abilities to pick from when improving one (empty on agents without Skills). */
  skillChoices = $state.raw<Array<{ id: string; title: string }>>([]);
  /** The open session that blocks a new one (LEARN_SESSION_ALREADY_ACTIVE). */
  blockedByActive = $state(false);
  /** "This computer": which desktop adapters could watch it. */
  readonly desktop: DesktopAdaptersState;
  readonly #deps: LearnDeps;
  readonly #options: SessionSetupOptions;

  constructor(deps: LearnDeps, options: SessionSetupOptions) {
    this.#deps = deps;
    this.#options = options;
    this.desktop = new DesktopAdaptersState(deps);
  }

  /**
   * A fresh form for this mode, the sites prefilled with the current tab's site — or, for Learn From
   * This (§0B.6), with the sites of the trace the session starts from.
   */
  async begin(entryMode: SetupEntryMode, targetSkillId = "", seed?: SetupSeed): Promise<void> {
    this.form = { ...defaultSetupForm(entryMode, seed?.sites ?? []), targetSkillId, seed };
    this.attempted = false;
    this.error = null;
    this.blockedByActive = false;
    this.siteDraft = "";
    this.siteError = null;
    this.domainDraft = "";
    this.domainError = null;
    if (entryMode === "improving_existing_skill") void this.#loadSkillChoices();
    const site = siteFromUrl(await this.#deps.browser.currentTabUrl().catch(() => undefined));
    if (site !== undefined && this.form.sites.length === 0) this.form.sites = [site];
  }

  /**
   * The picker's list once the agent's description is in: a set-up opened right after pairing,
   * before its features were read, would otherwise offer no skill at all (issue #16).
   */
  refreshSkillChoices(): void {
    if (this.form.entryMode === "improving_existing_skill" && this.skillChoices.length === 0) void this.#loadSkillChoices();
  }

  async #loadSkillChoices(): Promise<void> {
    if (!this.#deps.features.has("availability")) return;
    try {
      const { abilities } = await this.#deps.client.abilityAvailability();
      this.skillChoices = abilities.map((ability) => ({ id: ability.ability_id, title: ability.title }));
    } catch (error) {
      // The list only helps: the skill can still be typed by name.
      report(this.#deps, error);
    }
  }

  addSite(): void {
    const normalized = normalizeSiteEntry(this.siteDraft);
    if (!normalized.ok) {
      this.siteError = normalized.message;
      return;
    }
    if (!this.form.sites.includes(normalized.entry)) this.form.sites = [...this.form.sites, normalized.entry];
    this.siteDraft = "";
    this.siteError = null;
  }

  /** Learn From This on a recent session: its allow-list comes along as the sites to watch. */
  async seedFromSession(item: { learn_session_id: string; title?: string | undefined; created_at: string }): Promise<SetupSeed> {
    let sites: string[] = [];
    try {
      sites = (await this.#deps.client.sessionDetail(item.learn_session_id)).target_app_whitelist;
    } catch (error) {
      // Only a convenience: the person can add the sites by hand.
      report(this.#deps, error);
    }
    return seedOfSession(item, sites);
  }

  /** Learn From This on a learning receipt: the receipt names the trace; the sites are its session's. */
  async seedFromReceipt(
    receipt: { receipt_id: string; created_at: string; learn_session_id: string },
    label: string,
    session: { title?: string | undefined } | undefined,
  ): Promise<SetupSeed> {
    let sites: string[] = [];
    try {
      sites = (await this.#deps.client.sessionDetail(receipt.learn_session_id)).target_app_whitelist;
    } catch (error) {
      // Only a convenience: the person can add the sites by hand.
      report(this.#deps, error);
    }
    return seedOfReceipt(receipt, label, session, sites);
  }

  /** Start from nothing after all: an ordinary session of the same mode. */
  dropSeed(): void {
    this.form.seed = undefined;
  }

  removeSite(site: string): void {
    this.form.sites = this.form.sites.filter((entry) => entry !== site);
  }

  /** Test policy safe domains: host names only (a rehearsal may touch nothing else). */
  addDomain(): void {
    const normalized = normalizeSiteEntry(this.domainDraft);
    if (!normalized.ok) {
      this.domainError = normalized.message;
      return;
    }
    if (!this.form.safeDomains.includes(normalized.entry)) this.form.safeDomains = [...this.form.safeDomains, normalized.entry];
    this.domainDraft = "";
    this.domainError = null;
  }

  removeDomain(domain: string): void {
    this.form.safeDomains = this.form.safeDomains.filter((entry) => entry !== domain);
  }

  /**
   * Start: call straight from the click handler. Chrome's site-access prompt is requested first,
   * synchronously, while the click still counts as a user gesture; the agent calls follow.
   */
  submit(): void {
    if (this.busy) return;
    this.attempted = true;
    const planned = planSetup(this.form, this.#options.newId ?? (() => crypto.randomUUID()));
    if (!planned.ok) return;
    const { plan } = planned;
    const access = this.#deps.browser.requestSiteAccess(plan.sitesToGrant);
    this.busy = true;
    this.error = null;
    this.blockedByActive = false;
    void (async () => {
      try {
        const created = await this.#deps.client.createSession(plan.create);
        const id = created.session.learn_session_id;
        if (plan.redaction !== undefined) await this.#deps.client.setRedaction(id, plan.redaction);
        const withPolicy = await this.#deps.client.setTestPolicy(id, { test_policy: plan.testPolicy });
        this.#options.onCreated(withPolicy.session, access);
      } catch (error) {
        report(this.#deps, error);
        this.blockedByActive = failureCode(error) === "LEARN_SESSION_ALREADY_ACTIVE";
        this.error = describeFailure(error);
      } finally {
        this.busy = false;
      }
    })();
  }

  showActive(): void {
    this.#options.onShowActive();
  }
}

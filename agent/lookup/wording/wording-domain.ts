import type { Lexicon } from "../lexicon/wording-lexicon";
import { reversedBase } from "../lexicon/wording-morphology";

/**
 * The phrasing of our own domain (issue #15 allows it, and only it, besides the lexical resource):
 * the words web and software apps use for their features and actions, which WordNet — written
 * before carts, log-ins and two-factor codes — does not link ("basket" and "cart", "log in" and
 * "sign in", "edit" and "update", "csv" and "spreadsheet").
 *
 * Each group is one feature or action of an app, as different apps label it and people ask for it.
 * What may go in: the name of a user-interface feature, control or action, a file format, a role
 * or an object of account, shop, messaging, files, calendar, developer and payment screens. What
 * may not: general English synonyms (WordNet's job), and words chosen for an evaluation set's
 * requests. A group's members are related to each other at its closeness (WordNet's synonyms are
 * at 0.85); the matcher reads them as it reads WordNet's related words.
 */
interface DomainGroup {
  /** `SAME`: one feature under other labels; `NEAR`: one feature and its usual object or a narrower label. */
  closeness: number;
  /** Words and phrases (spaces or hyphens), written as apps and people write them. */
  terms: readonly string[];
}

const SAME = 0.85;
const NEAR = 0.7;

/** By screen. Spellings without a space ("login", "signup", "wishlist") are terms of their own. */
const DOMAIN_GROUPS: Readonly<Record<string, readonly DomainGroup[]>> = {
  account: [
    { closeness: SAME, terms: ["log in", "sign in", "login", "signin", "log on", "logon"] },
    { closeness: SAME, terms: ["log out", "sign out", "logout", "signout", "log off"] },
    { closeness: SAME, terms: ["sign up", "signup", "register", "registration", "create account", "create an account"] },
    { closeness: SAME, terms: ["username", "user name", "display name", "screen name", "nickname"] },
    { closeness: SAME, terms: ["password", "passcode", "passphrase", "credentials"] },
    {
      closeness: SAME,
      terms: [
        "two factor",
        "two factor authentication",
        "2fa",
        "mfa",
        "two step",
        "two step verification",
        "multi factor",
        "multi factor authentication",
        "authenticator",
        "verification code",
        "one time code",
      ],
    },
    { closeness: NEAR, terms: ["account", "profile"] },
    { closeness: SAME, terms: ["settings", "preferences", "options", "config", "configuration"] },
    { closeness: SAME, terms: ["avatar", "profile picture", "profile photo", "profile pic"] },
    { closeness: SAME, terms: ["admin", "administrator", "admin rights", "admin access", "superuser"] },
    { closeness: NEAR, terms: ["permission", "permissions", "access", "role", "rights"] },
    { closeness: NEAR, terms: ["reset", "recover", "recovery", "restore"] },
  ],
  actions: [
    { closeness: SAME, terms: ["edit", "update", "change", "modify"] },
    { closeness: SAME, terms: ["delete", "remove", "trash", "erase"] },
    { closeness: NEAR, terms: ["create", "add", "new", "set up"] },
    { closeness: NEAR, terms: ["view", "see", "show"] },
    { closeness: SAME, terms: ["search", "find", "look up", "look for", "browse"] },
    { closeness: SAME, terms: ["export", "download"] },
    { closeness: SAME, terms: ["import", "upload"] },
    { closeness: NEAR, terms: ["upload", "attach", "attachment"] },
    { closeness: SAME, terms: ["enable", "turn on", "switch on", "activate"] },
    { closeness: SAME, terms: ["disable", "turn off", "switch off", "deactivate"] },
    { closeness: NEAR, terms: ["submit", "send", "turn in", "hand in"] },
    { closeness: SAME, terms: ["post", "publish"] },
    { closeness: NEAR, terms: ["approve", "accept", "sign off", "confirm"] },
    { closeness: NEAR, terms: ["reject", "decline", "deny"] },
    { closeness: NEAR, terms: ["renew", "extend", "renewal"] },
    { closeness: NEAR, terms: ["cancel", "terminate", "end", "close"] },
    { closeness: NEAR, terms: ["pause", "suspend", "freeze", "on hold", "put on hold"] },
    { closeness: SAME, terms: ["unsubscribe", "opt out"] },
    { closeness: NEAR, terms: ["subscribe", "sign up", "join"] },
    { closeness: SAME, terms: ["bookmark", "favorite", "favourite", "save for later", "wish list", "wishlist", "saved items"] },
    { closeness: NEAR, terms: ["rate", "rating", "review", "feedback"] },
  ],
  shop: [
    { closeness: SAME, terms: ["cart", "basket", "shopping cart", "shopping basket", "shopping bag", "trolley"] },
    { closeness: NEAR, terms: ["buy", "purchase", "order", "checkout", "check out", "place order", "place an order"] },
    { closeness: NEAR, terms: ["pay", "payment", "checkout", "check out"] },
    { closeness: SAME, terms: ["coupon", "coupon code", "promo code", "promo", "discount code", "voucher", "promotional code"] },
    { closeness: NEAR, terms: ["discount", "coupon", "promo code"] },
    { closeness: SAME, terms: ["refund", "money back"] },
    { closeness: NEAR, terms: ["return", "refund"] },
    { closeness: SAME, terms: ["shipping", "delivery", "shipment"] },
    { closeness: SAME, terms: ["subscription", "membership"] },
    { closeness: NEAR, terms: ["subscription", "plan"] },
    { closeness: NEAR, terms: ["invoice", "bill", "receipt"] },
  ],
  payments: [
    { closeness: SAME, terms: ["payment method", "payment details", "payment info", "billing details", "billing info", "billing information", "card on file"] },
    { closeness: NEAR, terms: ["card", "credit card", "debit card", "visa", "mastercard", "amex"] },
    { closeness: SAME, terms: ["dispute", "chargeback"] },
    { closeness: SAME, terms: ["top up", "recharge", "reload", "add credit"] },
    { closeness: NEAR, terms: ["transfer", "send money", "move money"] },
  ],
  messages: [
    { closeness: SAME, terms: ["email", "e mail", "mail"] },
    { closeness: SAME, terms: ["inbox", "mailbox"] },
    { closeness: SAME, terms: ["newsletter", "mailing list", "email list"] },
    { closeness: SAME, terms: ["message", "dm", "direct message", "text message", "chat message"] },
    { closeness: SAME, terms: ["notification", "notifications", "alert", "alerts", "ping", "push notification"] },
    { closeness: SAME, terms: ["contacts", "contact list", "address book"] },
    { closeness: SAME, terms: ["survey", "poll", "questionnaire"] },
    { closeness: SAME, terms: ["out of office", "away message", "auto reply", "autoreply", "vacation responder"] },
    { closeness: SAME, terms: ["video call", "video chat", "video meeting", "video conference", "online meeting", "virtual meeting"] },
  ],
  files: [
    { closeness: SAME, terms: ["csv", "spreadsheet", "excel", "xlsx", "xls", "google sheets"] },
    { closeness: SAME, terms: ["folder", "directory"] },
    { closeness: SAME, terms: ["photo", "picture", "image", "pic", "pics"] },
    { closeness: NEAR, terms: ["pdf", "document", "doc", "docs"] },
    { closeness: SAME, terms: ["website", "web site", "site", "webpage", "web page"] },
    { closeness: NEAR, terms: ["app", "application"] },
  ],
  people: [
    { closeness: SAME, terms: ["time off", "pto", "vacation", "holiday", "day off", "days off", "leave request", "absence"] },
    { closeness: NEAR, terms: ["time off", "leave"] },
    { closeness: SAME, terms: ["expense", "expenses", "expense report", "expense claim"] },
    { closeness: NEAR, terms: ["expense claim", "reimbursement"] },
    { closeness: SAME, terms: ["job posting", "job opening", "job listing", "job ad", "vacancy"] },
    { closeness: SAME, terms: ["resume", "cv"] },
    { closeness: NEAR, terms: ["payroll", "paycheck", "salary", "wages", "pay slip", "payslip", "direct deposit"] },
    { closeness: SAME, terms: ["colleague", "coworker", "teammate", "team member"] },
  ],
  services: [
    { closeness: SAME, terms: ["support ticket", "help desk", "helpdesk", "support request", "support case"] },
    { closeness: NEAR, terms: ["appointment", "visit", "checkup", "consultation"] },
    { closeness: NEAR, terms: ["prescription", "refill", "medication", "meds"] },
    { closeness: SAME, terms: ["reservation", "booking"] },
    { closeness: NEAR, terms: ["itinerary", "trip", "booking"] },
    { closeness: SAME, terms: ["boarding pass", "check in", "online check in"] },
    { closeness: SAME, terms: ["tracking", "order status", "delivery status", "shipment status"] },
    { closeness: NEAR, terms: ["track", "tracking"] },
    { closeness: NEAR, terms: ["data usage", "data plan", "mobile data"] },
    { closeness: NEAR, terms: ["balance", "account balance"] },
  ],
  social: [
    { closeness: NEAR, terms: ["post", "status update", "tweet", "story"] },
    { closeness: NEAR, terms: ["comment", "reply"] },
    { closeness: SAME, terms: ["like", "react", "upvote"] },
    { closeness: SAME, terms: ["friend request", "connection request"] },
    { closeness: NEAR, terms: ["playlist", "queue", "mix"] },
    { closeness: NEAR, terms: ["stream", "watch"] },
    { closeness: NEAR, terms: ["cloud", "cloud storage", "cloud drive", "backup", "back up"] },
    { closeness: SAME, terms: ["sync", "synchronize"] },
  ],
  work: [
    { closeness: SAME, terms: ["task", "todo", "to do", "to do item", "action item"] },
    { closeness: SAME, terms: ["to do list", "todo list", "task list"] },
    { closeness: SAME, terms: ["bug", "issue", "defect"] },
    { closeness: NEAR, terms: ["ticket", "bug", "issue"] },
    { closeness: SAME, terms: ["repository", "repo"] },
    { closeness: SAME, terms: ["pull request", "pr", "merge request"] },
    { closeness: NEAR, terms: ["deploy", "deployment", "release", "roll out", "ship", "go live", "launch"] },
    { closeness: SAME, terms: ["production", "prod"] },
    { closeness: NEAR, terms: ["workspace", "team", "organization", "org"] },
    { closeness: NEAR, terms: ["book", "reserve", "schedule", "reservation", "booking"] },
    { closeness: NEAR, terms: ["reschedule", "postpone", "move"] },
    { closeness: NEAR, terms: ["appointment", "meeting", "event"] },
  ],
};

/**
 * Actions of apps that undo each other: a request for one is never a request for an ability
 * titled with the other ("turn off two-factor" is not "Turn on two-factor authentication").
 * Verbs reversed by "un-" ("unmute", "unsubscribe") need no entry (`reversedBase`).
 */
const DOMAIN_OPPOSITES: ReadonlyArray<readonly [readonly string[], readonly string[]]> = [
  [
    ["log in", "sign in", "login", "signin", "log on"],
    ["log out", "sign out", "logout", "signout", "log off"],
  ],
  [
    ["enable", "turn on", "switch on", "activate"],
    ["disable", "turn off", "switch off", "deactivate"],
  ],
  [
    ["subscribe", "sign up", "signup", "register", "enroll", "join"],
    ["unsubscribe", "opt out", "cancel", "leave", "deregister"],
  ],
  [["book", "reserve", "order", "schedule"], ["cancel"]],
  [
    ["add", "create", "install", "invite"],
    ["remove", "delete", "uninstall", "trash"],
  ],
  [
    ["freeze", "pause", "suspend", "block", "lock", "archive"],
    ["unfreeze", "resume", "unpause", "unsuspend", "unblock", "unlock", "unarchive"],
  ],
  [["show", "unhide"], ["hide"]],
  [["open"], ["close"]],
  [
    ["approve", "accept"],
    ["reject", "decline", "deny"],
  ],
  [
    ["connect", "link"],
    ["disconnect", "unlink"],
  ],
  [
    ["upload", "import"],
    ["download", "export"],
  ],
  [["follow"], ["unfollow"]],
  [["mute"], ["unmute"]],
];

/** A term as the lexicon writes base forms: lower case, words joined by `_`. */
function canonical(term: string): string {
  return term
    .toLowerCase()
    .trim()
    .replace(/[\s-]+/g, "_");
}

/** Each domain term and the terms related to it, with the closest closeness of any group they share. */
function domainRelations(): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const groups of Object.values(DOMAIN_GROUPS)) {
    for (const { closeness, terms } of groups) {
      const members = terms.map(canonical);
      for (const member of members) {
        let related = out.get(member);
        if (related === undefined) out.set(member, (related = new Map()));
        for (const other of members) if (other !== member && (related.get(other) ?? 0) < closeness) related.set(other, closeness);
      }
    }
  }
  return out;
}

const DOMAIN = domainRelations();

function domainOpposites(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const note = (from: string, to: string) => {
    let set = out.get(from);
    if (set === undefined) out.set(from, (set = new Set()));
    set.add(to);
  };
  for (const [one, other] of DOMAIN_OPPOSITES) {
    for (const a of one.map(canonical))
      for (const b of other.map(canonical)) {
        note(a, b);
        note(b, a);
      }
  }
  return out;
}

const OPPOSITES = domainOpposites();

/**
 * The actions that undo the one a base form names: the domain's pairs ("log_in" ↔ "log_out"),
 * WordNet's antonyms of a verb ("sell" ↔ "buy", "withdraw" ↔ "deposit"; `Lexicon.antonyms` says
 * which senses count) and a verb reversed by its prefix, both ways ("unsubscribe" ↔ "subscribe").
 * Empty for most words.
 */
export function oppositesOf(lemma: string, lexicon: Lexicon): readonly string[] {
  const out = new Set([...(OPPOSITES.get(lemma) ?? []), ...lexicon.antonyms(lemma)]);
  const known = (word: string) => lexicon.has(word);
  const base = reversedBase(lemma, known);
  if (base !== undefined) out.add(base);
  if (base === undefined) for (const prefix of ["un", "de", "dis"]) if (reversedBase(prefix + lemma, known) === lemma) out.add(prefix + lemma);
  return [...out];
}

/** Every term of the domain lexicon, as base forms (for tests). */
export function domainTerms(): readonly string[] {
  return [...DOMAIN.keys()];
}

/** Whether a base form is a term of the domain lexicon (for tests and explanations). */
export function isDomainTerm(lemma: string): boolean {
  return DOMAIN.has(lemma);
}

const WRAPPED = new WeakMap<Lexicon, Lexicon>();

/**
 * The lexicon with the domain's phrasing: a domain term is known (so "2fa" is a word, not a code,
 * and "promo code" is read as one, as WordNet's own phrases are), is its own base form when
 * WordNet has none, keeps its WordNet relations and gains its group's. One wrapper per lexicon.
 */
export function withDomainPhrasing(lexicon: Lexicon): Lexicon {
  const existing = WRAPPED.get(lexicon);
  if (existing !== undefined) return existing;
  const relatedCache = new Map<string, ReadonlyMap<string, number>>();
  // Every method named (not spread): a lexicon may keep its methods on a prototype.
  const wrapped: Lexicon = {
    broader: (lemma) => lexicon.broader(lemma),
    definitions: (lemma) => lexicon.definitions(lemma),
    weight: (lemma) => lexicon.weight(lemma),
    mostlyVerb: (lemma) => lexicon.mostlyVerb(lemma),
    antonyms: (lemma) => lexicon.antonyms(lemma),
    lemmas(word) {
      const found = lexicon.lemmas(word);
      if (DOMAIN.has(word)) return found.includes(word) ? found : [word, ...found.filter((lemma) => lexicon.has(lemma))];
      // A domain term's plural WordNet does not know ("prs", "csvs", "todos").
      if (word.endsWith("s") && DOMAIN.has(word.slice(0, -1)) && !found.some((lemma) => lexicon.has(lemma))) return [word.slice(0, -1)];
      return found;
    },
    related(lemma) {
      const domain = DOMAIN.get(lemma);
      if (domain === undefined) return lexicon.related(lemma);
      let merged = relatedCache.get(lemma);
      if (merged === undefined) {
        const out = new Map(lexicon.related(lemma));
        for (const [word, closeness] of domain) if ((out.get(word) ?? 0) < closeness) out.set(word, closeness);
        relatedCache.set(lemma, (merged = out));
      }
      return merged;
    },
    has: (lemma) => DOMAIN.has(lemma) || lexicon.has(lemma),
    // A domain term is a word of its own, not parts run together ("login" is not "log" + "in").
    parts: (word) => (DOMAIN.has(word) ? new Map() : lexicon.parts(word)),
  };
  WRAPPED.set(lexicon, wrapped);
  WRAPPED.set(wrapped, wrapped);
  return wrapped;
}

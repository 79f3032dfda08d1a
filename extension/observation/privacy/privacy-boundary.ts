import type { ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import { maskUrl } from "../../../shared/observation/url-rule";
import { createValueRefs } from "../../../shared/observation/value-ref";
import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import { createNeedleCache, createTypedValueScrubber, type TypedValueScrubber } from "../../../shared/observation/typed-value-scrubber";

/**
 * The content script's privacy boundary (DESIGN §8, issue 13): every string that leaves a page
 * passes through here, with one rule (`shared/observation/typed-value-scrubber.ts`) applied to every
 * value typed in the session so far.
 *
 * What it knows, all in memory only and forgotten with the session:
 * - values typed on this page, remembered when an edit is reported (and the last text seen in a
 *   field before the page cleared it), so a page that echoes a value after clearing its field
 *   (a chat line, a toast, "No results for …", a title, a hash route) still has it cut out;
 * - values typed on the session's other pages, from the background (`CaptureConfig.typed_values`),
 *   so the results page of a search shows no query either;
 * - what the fields of the page hold right now (a value being typed, one a script set).
 *
 * `event()` and `snapshot()` walk every string of what is about to leave: a field added to the
 * contract later is scrubbed by default; only the keys listed as structural (ids, enums, refs,
 * hashes, times) pass as they are, and the masked field is the masker's own output.
 */
export interface PrivacyBoundary {
  /** Values typed on this page; returns those the session did not know yet (to share with its other pages). */
  remember(values: Iterable<string>): string[];
  /** Values typed on the session's other pages (the background's list). */
  setSessionValues(values: readonly string[]): void;
  /** Where the values in the page's fields right now are read from (undefined: nothing observed). */
  setLiveValues(read: (() => string[]) | undefined): void;
  /** The scrubber for every value known now (rebuilt only when the values changed). */
  scrubber(): TypedValueScrubber;
  /** Page text with every typed value cut out. */
  text(text: string): string;
  /**
   * An address under the URL rule (shared/observation/url-rule.ts): what routes stays, a typed
   * value becomes a marker naming it by its keyed reference, a secret becomes `*`.
   */
  url(url: string): string;
  /** The session's key (`CaptureConfig.hash_key`): typed values in addresses are referenced under it. */
  setKey(key: string | undefined): void;
  /** Selector alternatives without those that would carry a typed value, escaped or not. */
  selectors(alternatives: readonly (readonly string[])[]): string[][];
  /** The event as it may leave: every page-derived string scrubbed, URLs masked, selectors filtered. */
  event(event: ObservedActionEventWithDetail): ObservedActionEventWithDetail;
  /** The snapshot as it may leave (before it is named by its hash). */
  snapshot(snapshot: PageSnapshot): PageSnapshot;
  /** The session ended: every value is forgotten. */
  forget(): void;
}

/** Keys whose values are ours, not the page's: ids, enums, refs, hashes, times, counts. */
const STRUCTURAL_KEYS: ReadonlySet<string> = new Set([
  "event_id",
  "learn_session_id",
  "adapter_kind",
  "app_family",
  "control_surface",
  "target_ref",
  "before_state_ref",
  "after_state_ref",
  "redaction_mode",
  "created_at",
  "schema_version",
  "target_role",
  "target_tag",
  "input_type",
  "dom_event_kind",
  // Snapshot structure.
  "level",
  "type",
  "role",
]);
const NO_LIVE_VALUES: string[] = [];
const URL_KEYS: ReadonlySet<string> = new Set(["page_url", "url"]);
/** The masker's output: masked already (or the consented value itself, which is the point of `none`). */
const MASKED_KEYS: ReadonlySet<string> = new Set(["masked_field"]);

export function createPrivacyBoundary(): PrivacyBoundary {
  const values = createKnownValues();
  const urls = createUrlMasker();
  /** Selector parts with their escapes undone (the same selectors are checked at every click and on the way out); forgotten with the session. */
  let unescaped = new Map<string, string>();
  const selectors = (alternatives: readonly (readonly string[])[], scrub: TypedValueScrubber = values.scrubber()): string[][] =>
    alternatives.filter((parts) => parts.every((part) => !carriesValue(part, scrub, unescaped))).map((parts) => [...parts]);
  const rules: WalkRules = { url: urls.mask, selectors };

  return {
    remember: values.remember,
    setSessionValues: values.setSessionValues,
    setLiveValues: values.setLiveValues,
    scrubber: values.scrubber,
    text: (text) => values.scrubber().scrub(text),
    url: (raw) => urls.mask(raw, values.scrubber()),
    setKey: urls.setKey,
    selectors: (alternatives) => selectors(alternatives),
    event: (event) => walk(event, undefined, values.scrubber(), rules) as ObservedActionEventWithDetail,
    snapshot: (snapshot) => walk(snapshot, undefined, values.scrubber(), rules) as PageSnapshot,
    forget() {
      values.forget();
      unescaped = new Map();
      urls.forget();
    },
  };
}

type KnownValues = Pick<PrivacyBoundary, "remember" | "setSessionValues" | "setLiveValues" | "scrubber" | "forget">;

/** The values typed in the session so far (this page's, the session's other pages', the fields' now), and the scrubber of all of them. */
function createKnownValues(): KnownValues {
  const pageValues = new Set<string>();
  let sessionValues: readonly string[] = [];
  const live = createLiveValues();
  let builtFrom: string[] = [];
  // Values come and go one at a time: each one's pattern is compiled once, not at every rebuild.
  let compiled = createNeedleCache();
  let current: TypedValueScrubber = createTypedValueScrubber([], compiled);
  /** Bumped when the session's or the page's values change: with the same live values, the scrubber is the same. */
  let knownVersion = 0;
  let builtVersion = -1;
  let builtLive: string[] | undefined;

  return {
    remember(values) {
      const added: string[] = [];
      for (const value of values) {
        const trimmed = value.trim();
        if (trimmed === "" || pageValues.has(trimmed) || sessionValues.includes(trimmed)) continue;
        pageValues.add(trimmed);
        added.push(trimmed);
        knownVersion += 1;
      }
      return added;
    },
    setSessionValues(values) {
      sessionValues = [...values];
      knownVersion += 1;
    },
    setLiveValues(read) {
      live.set(read);
      knownVersion += 1;
    },
    scrubber() {
      const liveNow = live.read();
      // One event asks several times within a task: the same values, the same array of live values.
      if (builtVersion === knownVersion && builtLive === liveNow) return current;
      const values = [...sessionValues, ...pageValues, ...liveNow];
      builtVersion = knownVersion;
      builtLive = liveNow;
      if (values.length !== builtFrom.length || values.some((value, index) => value !== builtFrom[index])) {
        builtFrom = values;
        // The last scrubber lends the texts it found clean; only the values it did not have are looked for in them again.
        current = createTypedValueScrubber(values, compiled, current);
      }
      return current;
    },
    forget() {
      pageValues.clear();
      sessionValues = [];
      builtFrom = [];
      knownVersion += 1;
      compiled = createNeedleCache();
      current = createTypedValueScrubber([], compiled);
    },
  };
}

/**
 * What the page's fields hold, read once per task: until our synchronous code returns, no page
 * script runs and no field can change, yet one event asks for the scrubber several times.
 */
function createLiveValues(): { set(read: (() => string[]) | undefined): void; read(): string[] } {
  let readLive: (() => string[]) | undefined;
  let liveThisTask: string[] | undefined;
  return {
    set(read) {
      readLive = read;
      liveThisTask = undefined;
    },
    read() {
      if (readLive === undefined) return NO_LIVE_VALUES;
      if (liveThisTask === undefined) {
        liveThisTask = readLive();
        queueMicrotask(() => {
          liveThisTask = undefined;
        });
      }
      return liveThisTask;
    },
  };
}

/** Addresses under the URL rule, typed values referenced under the session key (none before it is known: markers then name no value). */
function createUrlMasker(): { mask(raw: string, scrub: TypedValueScrubber): string; setKey(key: string | undefined): void; forget(): void } {
  let refOf: ((value: string) => string | undefined) | undefined;
  let refKey: string | undefined;
  const ref = (needle: string): string | undefined => refOf?.(needle);
  /** URLs masked with a scrubber: every event and snapshot of a page carries the same few (its URL, masked and again). */
  let maskedUrls = new WeakMap<TypedValueScrubber, Map<string, string>>();
  return {
    mask(raw, scrub) {
      let known = maskedUrls.get(scrub);
      if (known === undefined) maskedUrls.set(scrub, (known = new Map()));
      let masked = known.get(raw);
      if (masked === undefined) {
        masked = maskUrl(raw, { scrub: (text, replace) => scrub.scrub(text, replace), ref });
        if (known.size >= 64) known.clear();
        known.set(raw, masked);
      }
      return masked;
    },
    setKey(key) {
      if (key === refKey) return;
      refKey = key;
      refOf = key === undefined ? undefined : createValueRefs(key);
      // Addresses masked before name their values differently now.
      maskedUrls = new WeakMap();
    },
    forget() {
      refOf = undefined;
      refKey = undefined;
      maskedUrls = new WeakMap();
    },
  };
}

interface WalkRules {
  url(raw: string, scrub: TypedValueScrubber): string;
  selectors(alternatives: readonly (readonly string[])[], scrub: TypedValueScrubber): string[][];
}

/** Walks a value, scrubbing every page-derived string (see STRUCTURAL_KEYS). */
function walk(value: unknown, key: string | undefined, scrub: TypedValueScrubber, rules: WalkRules): unknown {
  if (typeof value === "string") {
    if (key !== undefined && STRUCTURAL_KEYS.has(key)) return value;
    if (key !== undefined && URL_KEYS.has(key)) return rules.url(value, scrub);
    return scrub.scrub(value);
  }
  if (Array.isArray(value)) {
    if (key === "selectors") return rules.selectors(value as string[][], scrub);
    return value.map((item) => walk(item, undefined, scrub, rules));
  }
  if (typeof value === "object" && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) copy[name] = MASKED_KEYS.has(name) ? item : walk(item, name, scrub, rules);
    return copy;
  }
  return value;
}

/** Whether a selector part holds a typed value as written, or once its CSS or XPath escapes are undone. */
function carriesValue(part: string, scrub: TypedValueScrubber, unescaped: Map<string, string>): boolean {
  if (scrub.size === 0) return false;
  let plain = unescaped.get(part);
  if (plain === undefined) {
    plain = unescapeCss(part);
    if (unescaped.size >= 2000) unescaped.clear();
    unescaped.set(part, plain);
  }
  return scrub.contains(part) || scrub.contains(plain);
}

/** `\31 23` → `123`, `\"` → `"`: what a CSS selector's escaped identifier or string says. */
export function unescapeCss(text: string): string {
  return text.replace(/\\([0-9a-fA-F]{1,6})[ \t\n]?|\\([\s\S])/g, (_, hex: string | undefined, char: string | undefined) => {
    if (hex === undefined) return char ?? "";
    const code = Number.parseInt(hex, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "\ufffd";
  });
}

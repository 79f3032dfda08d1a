/**
 * The one rule for finding typed values in text (DESIGN §8 "Privacy boundary", issue 13). The
 * content script cuts them out of everything that leaves a page, the rehearsal out of what it
 * reports, the refiner checks its wording with it: one rule, so no path is looser than another.
 *
 * A value is found:
 * - whatever the case (`Canary`, `CANARY`, `canary`);
 * - whatever the whitespace between its words (runs of spaces, tabs, line breaks and non-breaking
 *   spaces match each other; leading and trailing whitespace is not part of the value);
 * - whole, and each line of a multi-line value on its own;
 * - as the page may have written it into a URL or markup: percent-encoded (`%20`, `+` for spaces,
 *   any percent-encoding of its characters) and HTML-escaped (`&amp;`, `&lt;`, `&#39;`…).
 * Values (and lines) shorter than `MIN_SCRUB_LENGTH` characters are not looked for: "a" or "12"
 * would blank out half of every page.
 */

/** Shorter values are not scrubbed from page text (see the README's privacy section). */
export const MIN_SCRUB_LENGTH = 3;
/** What a typed value becomes in page text. */
export const SCRUBBED = "•••";

/** What a value found in a text becomes: a fixed text, or one made from the value found (the URL rule's reference). */
export type Replacement = string | ((needle: string) => string);

export interface TypedValueScrubber {
  /**
   * The text with every occurrence of every value replaced by `replacement` (default `SCRUBBED`);
   * a function is given the value found (its needle: words joined by single spaces) and returns its replacement.
   */
  scrub(text: string, replacement?: Replacement): string;
  /** Whether the text holds any of the values, in any of the forms above. */
  contains(text: string): boolean;
  /** How many distinct values (and lines) it looks for: 0 means it changes nothing. */
  readonly size: number;
}

/** Between two words of a value: any run of whitespace, as written in text, URLs or markup. */
const GAP = String.raw`(?:[\s\u00a0\u2000-\u200b\u202f\u205f\u3000]|%20|%09|%0a|%0d|%c2%a0|\+|&nbsp;|&#160;|&#x0*a0;|&#32;|&#x0*20;|&#0*9;|&#0*10;)+`;

const NO_VALUES: TypedValueScrubber = { scrub: (text) => text, contains: () => false, size: 0 };

/** The needles of one value (the whole value and each of its lines): its words, trimmed, joined by single spaces, long enough. */
function valueNeedles(value: string): string[] {
  const needles: string[] = [];
  const whole = value.normalize("NFC").trim();
  const pieces = [whole, ...whole.split(/\r\n|\r|\n/)];
  for (const piece of pieces) {
    const words = piece
      .trim()
      .split(/[\s\u00a0\u2000-\u200b\u202f\u205f\u3000]+/)
      .filter(Boolean);
    const joined = words.join(" ");
    if (joined.length >= MIN_SCRUB_LENGTH && !needles.includes(joined)) needles.push(joined);
  }
  return needles;
}

/** The words of each needle (the whole value and each of its lines), trimmed, long enough, distinct. */
export function needlesOf(values: Iterable<string>, cache?: NeedleCache): string[] {
  // Longest first, so a value that contains another is cut whole.
  return [...needleSet(values, cache)].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
}

function needleSet(values: Iterable<string>, cache: NeedleCache | undefined): Set<string> {
  const needles = new Set<string>();
  for (const value of values) {
    if (typeof value !== "string") continue;
    let found = cache?.byValue.get(value);
    if (found === undefined) {
      found = valueNeedles(value);
      if (cache !== undefined) {
        if (cache.byValue.size >= CACHE_LIMIT) cache.byValue.delete(cache.byValue.keys().next().value as string);
        cache.byValue.set(value, found);
      }
    }
    for (const needle of found) needles.add(needle);
  }
  return needles;
}

/**
 * A value's compiled pattern and the cheap keys that say whether a text may hold it at all. Kept
 * by the caller across scrubbers (`NeedleCache`): a session's values change one at a time, and
 * compiling one pattern of every value at each change cost tens of milliseconds on a busy page.
 * Both are made from the needle alone, so the same needle always has the same keys.
 */
interface CompiledNeedle {
  needle: string;
  /** Lower-cased forms of the value's longest word, as any of the encodings writes it. */
  keys: string[];
  readonly replacer: RegExp;
}

/**
 * What one caller (a page's boundary) keeps across the scrubbers it builds: compiled needles by
 * needle, and the needles of each value. Values and needles only, in memory, dropped with it.
 */
export interface NeedleCache {
  compiled: Map<string, CompiledNeedle>;
  byValue: Map<string, string[]>;
}

export function createNeedleCache(): NeedleCache {
  return { compiled: new Map(), byValue: new Map() };
}

/** The most needles (and values) a cache keeps (the oldest go first; they are worked out again if asked for). */
const CACHE_LIMIT = 2000;

function compile(needle: string, cache: NeedleCache): CompiledNeedle {
  const cached = cache.compiled.get(needle);
  if (cached !== undefined) return cached;
  const words = needle.split(" ");
  const longest = words.reduce((best, word) => (word.length > best.length ? word : best), "");
  const keys = new Set<string>();
  for (const encode of ENCODINGS) keys.add(encode(longest).toLowerCase());
  let replacer: RegExp | undefined;
  const compiled: CompiledNeedle = {
    needle,
    keys: [...keys],
    // The pattern is made the first time a text holds a key: most values are never seen again on the page.
    get replacer() {
      if (replacer === undefined) {
        // One alternative per distinct form, compared as the case-insensitive pattern compares them: for a
        // plain word every encoding is the word itself, so the pattern stays one alternative.
        const alternatives = new Map<string, string>();
        for (const encode of ENCODINGS) {
          const form = words.map((word) => encode(word));
          const key = form.join(" ").toLowerCase();
          if (!alternatives.has(key)) alternatives.set(key, form.map(escapeRegExp).join(GAP));
        }
        replacer = new RegExp([...alternatives.values()].join("|"), "gi");
      }
      return replacer;
    },
  };
  if (cache.compiled.size >= CACHE_LIMIT) cache.compiled.delete(cache.compiled.keys().next().value as string);
  cache.compiled.set(needle, compiled);
  return compiled;
}

/**
 * What a scrubber learnt that the next one may reuse: its needles, and the texts it found clean —
 * no key of any of its needles in them and no start of one at a clipped end, so it left them as
 * they were. Such a text is clean for a later scrubber too unless a needle the earlier one did not
 * have (an added value) may be in it: only those are looked for again (`previous` below).
 */
interface Learnt {
  needles: ReadonlySet<string>;
  clean: Set<string>;
}
const learnt = new WeakMap<TypedValueScrubber, Learnt>();

/**
 * Builds the scrubber for a set of typed values. Pure but for `cache`, which only remembers compiled
 * patterns: the values stay in the returned closure (and the cache) only. `previous`, a scrubber
 * built with the same cache, lends the texts it found clean: each is checked again for the needles
 * it did not have (a newly typed value) before it is taken as clean, never taken on trust.
 */
export function createTypedValueScrubber(
  values: Iterable<string>,
  cache: NeedleCache = createNeedleCache(),
  previous?: TypedValueScrubber,
): TypedValueScrubber {
  const distinct = needleSet(values, cache);
  if (distinct.size === 0) return NO_VALUES;
  const before = previous === undefined ? undefined : learnt.get(previous);
  // The same needles make the same scrubber (a value reported as typed was already in its field): the previous one serves, with all it remembers.
  if (before !== undefined && previous !== undefined && sameSet(distinct, before.needles)) return previous;
  // Longest first, so a value that contains another is cut whole.
  const needles = [...distinct].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const compiled = needles.map((needle) => compile(needle, cache));
  const lowered = needles.map((needle) => needle.toLowerCase());
  const own: Learnt = { needles: distinct, clean: new Set() };
  /** The needles the previous scrubber did not have: a text it found clean may hold only these. */
  const added = before === undefined ? [] : compiled.filter((needle) => !before.needles.has(needle.needle));
  const addedLowered = added.map((needle) => needle.needle.toLowerCase());
  const mayHoldAny = (lower: string, among: readonly CompiledNeedle[]): boolean => among.some((needle) => needle.keys.some((key) => lower.includes(key)));
  /** True when the text holds no needle and no start of one at a clipped end: scrubbing leaves it as it is. */
  const isClean = (text: string): boolean => {
    if (own.clean.has(text)) return true;
    let clean: boolean;
    if (before !== undefined && before.clean.has(text)) {
      clean = !mayHoldAny(text.toLowerCase(), added) && cutDanglingPrefix(text, addedLowered, "\u0000") === text;
    } else {
      clean = !mayHoldAny(text.toLowerCase(), compiled) && cutDanglingPrefix(text, lowered, "\u0000") === text;
    }
    if (clean) {
      if (own.clean.size >= MEMO_LIMIT) own.clean.clear();
      own.clean.add(text);
    }
    return clean;
  };
  /** The needles a text may hold: a key of theirs is in it (a plain substring test, before any pattern runs). */
  const candidates = (text: string): CompiledNeedle[] => {
    const lower = text.toLowerCase();
    return compiled.filter((needle) => needle.keys.some((key) => lower.includes(key)));
  };
  const scrub = (text: string, replacement: Replacement): string => {
    if (isClean(text)) return text;
    let result = text;
    // Longest first (needles are sorted so), so a value that contains another is cut whole.
    for (const needle of candidates(text)) {
      // A function replaces literally: `$` in what it returns means nothing.
      result =
        typeof replacement === "string" ? result.replace(needle.replacer, replacement) : result.replace(needle.replacer, () => replacement(needle.needle));
    }
    return cutDanglingPrefix(result, lowered, replacement);
  };
  // A page shows the same texts again and again (every snapshot lists the same names): each one is
  // scrubbed once per scrubber. Memory only, dropped with the scrubber (a new value makes a new one).
  const memo = new Map<string, string>();
  const containsMemo = new Map<string, boolean>();
  const scrubOnce = (text: string): string => {
    let result = memo.get(text);
    if (result === undefined) {
      result = scrub(text, SCRUBBED);
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(text, result);
    }
    return result;
  };
  const scrubber: TypedValueScrubber = {
    scrub: (text, replacement = SCRUBBED) => (text === "" ? text : replacement === SCRUBBED ? scrubOnce(text) : scrub(text, replacement)),
    contains: (text) => {
      if (text === "") return false;
      let found = containsMemo.get(text);
      if (found === undefined) {
        found = scrub(text, "\u0000") !== text;
        if (containsMemo.size >= MEMO_LIMIT) containsMemo.clear();
        containsMemo.set(text, found);
      }
      return found;
    },
    size: needles.length,
  };
  learnt.set(scrubber, own);
  return scrubber;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const item of a) if (!b.has(item)) return false;
  return true;
}

/** The most texts a scrubber remembers the answer for (then it starts again). */
const MEMO_LIMIT = 5000;

/** The mark our text clipping ends a cut text with. */
const CLIPPED = "…";

/**
 * A text cut short before it was scrubbed ("… Ship to: Canar…") may end in the start of a value:
 * that start goes too, when it is at least `MIN_SCRUB_LENGTH` characters long.
 */
function cutDanglingPrefix(text: string, needles: readonly string[], replacement: Replacement): string {
  if (!text.endsWith(CLIPPED)) return text;
  const body = text.slice(0, -CLIPPED.length);
  const tail = body.slice(-200).toLowerCase();
  for (const needle of needles) {
    for (let length = Math.min(needle.length - 1, tail.length); length >= MIN_SCRUB_LENGTH; length -= 1) {
      if (tail.endsWith(needle.slice(0, length)))
        return `${body.slice(0, body.length - length)}${typeof replacement === "string" ? replacement : replacement(needle)}${CLIPPED}`;
    }
  }
  return text;
}

/** The forms in which a page may write a word of a typed value. */
const ENCODINGS: readonly ((word: string) => string)[] = [
  (word) => word,
  // Full case mapping changes lengths where the regular expression's case folding does not (ß → SS).
  (word) => word.toUpperCase(),
  (word) => word.toLowerCase(),
  (word) => safeEncode(word, encodeURIComponent),
  // encodeURI leaves reserved characters (`/`, `?`, `&`, `=`…) as they are, as paths often do.
  (word) => safeEncode(word, encodeURI),
  // Form encoding escapes a few more characters than encodeURIComponent does.
  (word) => safeEncode(word, encodeURIComponent).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`),
  escapeHtml,
  (word) =>
    escapeHtml(word)
      .replace(/&#39;/g, "&apos;")
      .replace(/&quot;/g, "&#34;"),
];

function safeEncode(word: string, encode: (text: string) => string): string {
  try {
    return encode(word);
  } catch {
    // A lone surrogate cannot be percent-encoded: it cannot appear encoded either.
    return word;
  }
}

function escapeHtml(word: string): string {
  return word.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

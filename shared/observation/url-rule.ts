/**
 * The URL rule (DESIGN §9 "URLs keep what routes", issue #35): what of an address may leave a page,
 * in one place for the content script (which applies it with the session's typed values), the
 * rehearsal (which applies it to the addresses it reports) and the agent (which checks what arrives
 * and replays what was recorded).
 *
 * An address keeps its origin, path, query and fragment as the app wrote them, except:
 * - credentials (`user:password@`) are dropped;
 * - a value typed in the session (found as the scrubber finds it: any case, spacing or encoding;
 *   values shorter than `MIN_SCRUB_LENGTH` are not looked for, as in page text) becomes a typed
 *   marker, `*typed-<ref>*`, where `<ref>` is the value's keyed reference (value-ref.ts): the
 *   compiler puts the parameter of the field it was typed into there, `?id={{page_name}}`;
 * - a secret becomes `*` and is never replayed: the value of a query or fragment key named like a
 *   secret (`SECRET_KEY_WORDS`, `SECRET_KEY_PARTS`; `code` and `state` unless the value is a plain
 *   short word like `open`), and any value or path segment shaped like one (`looksLikeSecret`:
 *   a JWT, an email address, 32+ hex digits, a long mixed run of letters and digits like a random
 *   token), and a path segment with a digit or 12+ characters after `/reset/`, `/token/`,
 *   `/verify/`… (`SECRET_PATH_WORDS`);
 * - a `*` the app itself wrote is kept as `%2A`, so a bare `*` always means "masked".
 * When the typed values are "unknown" (a typed command line, a snapshot read without the boundary),
 * every query value, fragment pair and fragment-route value counts as typed and becomes `*`.
 */

/** A masked secret (or, with unknown typed values, any value): never replayed. */
export const MASKED_URL_VALUE = "*";
/** A typed value without a reference (no session key known yet): masked, and never replayed either. */
export const UNLINKED_TYPED_MARKER = "*typed*";

/** The marker for a typed value with its reference. */
export function typedMarker(ref: string | undefined): string {
  return ref === undefined ? UNLINKED_TYPED_MARKER : `*typed-${ref}*`;
}

/** Every marker in a masked URL: `*typed-<ref>*`, `*typed*`, `*`. */
const MARKER = /\*typed-([0-9a-f]{12})\*|\*typed\*|\*/g;

/** What the URL rule is given of the session's typed values. */
export interface UrlTypedValues {
  /** Replaces each typed value found in the text (in any of its forms) by what `replace` makes of it (the scrubber's `scrub`). */
  scrub(text: string, replace: (needle: string) => string): string;
  /** A found value's reference (value-ref.ts), undefined when the session's key is not known. */
  ref(needle: string): string | undefined;
}

/** Key words that name a secret wherever they stand in a key (`access_token`, `X-CSRF-Token`, `_wpnonce`, `PHPSESSID`). */
const SECRET_KEY_PARTS = [
  "token",
  "csrf",
  "xsrf",
  "nonce",
  "secret",
  "passw",
  "passwd",
  "pwd",
  "sessid",
  "session",
  "sectok",
  "signature",
  "apikey",
  "privatekey",
  "credential",
  "ticket",
  "saml",
  "jwt",
  "bearer",
  "verifier",
  "challenge",
  "hmac",
  "assertion",
  "cookie",
] as const;
/** Whole words of a key that name a secret (`sid`, `sig`, `key`, `api_key`, `auth`, `pin`). */
const SECRET_KEY_WORDS: ReadonlySet<string> = new Set(["sid", "sig", "key", "auth", "pin", "pass", "otp", "totp", "mfa", "hash", "salt", "sso", "login_hint"]);
/** Key words that name a secret unless the value is a plain short word (`state=open`, `code=US` route; `state=xY3…`, `code=482913` do not). */
const SECRET_UNLESS_PLAIN: ReadonlySet<string> = new Set(["code", "state"]);
/** Path words after which a segment with a digit or 12+ characters is taken for a token (`/reset/9f2c…`, `/verify/482913`). */
const SECRET_PATH_WORDS: ReadonlySet<string> = new Set([
  "token",
  "tokens",
  "reset",
  "password-reset",
  "verify",
  "verification",
  "confirm",
  "confirmation",
  "activate",
  "activation",
  "invite",
  "invitation",
  "magic",
  "magic-link",
  "session",
  "sessions",
  "oauth",
  "auth",
  "otp",
  "key",
  "keys",
  "secret",
  "secrets",
  "sso",
  "saml",
  "unsubscribe",
  "login",
]);

function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Whether a query or fragment key names a secret, given its value (only `code` and `state` look at the value). */
export function isSecretKey(key: string, value: string): boolean {
  const lower = key.toLowerCase();
  if (SECRET_KEY_PARTS.some((part) => lower.includes(part))) return true;
  const words = keyWords(key);
  if (words.some((word) => SECRET_KEY_WORDS.has(word)) || SECRET_KEY_WORDS.has(words.join("_"))) return true;
  if (words.includes("api") && words.includes("key")) return true;
  if (words.some((word) => SECRET_UNLESS_PLAIN.has(word))) {
    // A marker is as plain as a word: what it stands for was judged before it was marked.
    const plain = stripMarkers(value).trim();
    return !(plain === "" || /^[A-Za-z]{1,12}$/.test(plain));
  }
  return false;
}

/** Letters and digits changing class this often in a long run is what random tokens do and words do not. */
function mixedRun(run: string): boolean {
  if (run.length < 16 || !/[0-9]/.test(run) || !/[A-Za-z]/.test(run)) return false;
  let changes = 0;
  const classOf = (char: string) => (/[0-9]/.test(char) ? 0 : /[a-z]/.test(char) ? 1 : 2);
  for (let index = 1; index < run.length; index += 1) if (classOf(run[index - 1] as string) !== classOf(run[index] as string)) changes += 1;
  return changes / (run.length - 1) >= 0.3;
}

/**
 * Whether a (decoded) value or path segment is shaped like a secret whatever its key: a JWT, an
 * email address, 32 or more hex digits in a row, or a long run of letters and digits mixed the way
 * random tokens are. UUIDs and numeric ids (ids of existing pages) are not.
 */
export function looksLikeSecret(value: string): boolean {
  const text = stripMarkers(value);
  if (/eyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/.test(text)) return true;
  if (/[^\s@/?#&=]+@[^\s@/?#&=]+\.[A-Za-z]{2,}/.test(text)) return true;
  if (/[0-9a-fA-F]{32,}/.test(text)) return true;
  return (text.match(/[A-Za-z0-9]+/g) ?? []).some(mixedRun);
}

function stripMarkers(text: string): string {
  return text.replace(MARKER, " ");
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}

/** An app's own `*` kept as `%2A`: a bare `*` is only ever ours. */
function escapeStars(text: string): string {
  return text.replace(/\*/g, "%2A");
}

/** In an address masked already, the markers pass and any other `*` is escaped. */
function escapeStarsButMarkers(text: string): string {
  let out = "";
  let last = 0;
  for (const match of text.matchAll(MARKER)) {
    out += text.slice(last, match.index).replace(/\*/g, "%2A") + match[0];
    last = (match.index ?? 0) + match[0].length;
  }
  return out + text.slice(last).replace(/\*/g, "%2A");
}

type Typed = UrlTypedValues | "unknown" | undefined;

/**
 * A piece of the page's own address, raw, made ready for the rule: encoded unreserved characters
 * decoded (a typed value may hide behind `%4D`; RFC 3986 §2.3 says they mean the same) and the app's
 * own `*` escaped. An address masked already (the agent's check; "unknown", which masks every value
 * and must change nothing when applied twice) keeps its markers.
 */
function prepare(text: string, typed: Typed): string {
  if (typed === undefined || typed === "unknown") return escapeStarsButMarkers(text);
  return escapeStars(unreservedDecoded(text));
}

/** Typed values in a prepared piece as their markers. */
function markTyped(text: string, typed: Typed): string {
  if (typed === undefined || typed === "unknown") return text;
  return typed.scrub(text, (needle) => typedMarker(typed.ref(needle)));
}

/** `%4D` → `M`: an encoded letter, digit or `-._~` means the same (RFC 3986 §2.3). */
function unreservedDecoded(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : escape;
  });
}

/**
 * `key=value&…` (a query or a fragment's pairs) under the rule: secrets are judged on the value as
 * the page wrote it, before typed values are marked (a token stays masked even when a few of its
 * characters were typed somewhere), and again after.
 */
function maskPairs(pairs: string, typed: Typed): string {
  if (pairs === "") return pairs;
  return pairs
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      const rawKey = prepare(equals >= 0 ? pair.slice(0, equals) : pair, typed);
      const rawValue = equals >= 0 ? prepare(pair.slice(equals + 1), typed) : undefined;
      const key = markTyped(rawKey, typed);
      if (rawValue === undefined) return key;
      if (typed === "unknown") return `${key}=${MASKED_URL_VALUE}`;
      const secret = (value: string) => isSecretKey(decode(rawKey), decode(value)) || looksLikeSecret(decode(value));
      if (secret(rawValue)) return `${key}=${MASKED_URL_VALUE}`;
      const value = markTyped(rawValue, typed);
      return `${key}=${secret(value) ? MASKED_URL_VALUE : value}`;
    })
    .join("&");
}

/** Path segments that are secrets, as `*` (a token's shape, or what follows `/reset/`, `/verify/`…). */
function maskSecretSegments(path: string): string {
  const segments = path.split("/");
  return segments
    .map((segment, index) => {
      const decoded = stripMarkers(decode(segment));
      if (looksLikeSecret(decoded)) return MASKED_URL_VALUE;
      const before = index > 0 ? decode(segments[index - 1] as string).toLowerCase() : "";
      if (SECRET_PATH_WORDS.has(before) && (/[0-9]/.test(decoded) || decoded.trim().length >= 12)) return MASKED_URL_VALUE;
      return segment;
    })
    .join("/");
}

/** A path (or a fragment route) under the rule: secret segments first, then typed values (which may span segments), then secrets again. */
function maskPath(path: string, typed: Typed): string {
  return maskSecretSegments(markTyped(maskSecretSegments(prepare(path, typed)), typed));
}

/** What comes before the path (scheme, host, port) as the URL writes it (`about:blank` and `file:` too), and whether it ends in an empty `?` or `#`. */
function partsOf(parsed: URL): { origin: string; emptyQuery: boolean; emptyHash: boolean } {
  // An empty `?` or `#` is in `href` but not in `search` or `hash`.
  const emptyHash = parsed.hash === "" && parsed.href.endsWith("#");
  const beforeHash = emptyHash ? parsed.href.slice(0, -1) : parsed.href;
  const emptyQuery = parsed.search === "" && beforeHash.slice(0, beforeHash.length - parsed.hash.length).endsWith("?");
  const origin = parsed.href.slice(
    0,
    parsed.href.length - parsed.pathname.length - parsed.search.length - parsed.hash.length - (emptyHash ? 1 : 0) - (emptyQuery ? 1 : 0),
  );
  return { origin, emptyQuery, emptyHash };
}

/**
 * The address as it may leave the page (see the module's comment). `typed`: the session's typed
 * values (the privacy boundary's; every `*` of the page's own is escaped), "unknown" when any value
 * may have been typed, or undefined when none was (the agent's check of an address masked already,
 * and the rehearsal's report of an address it opened). Unparseable input yields "".
 */
export function maskUrl(url: string, typed?: Typed): string {
  const once = applyRule(url, typed);
  // What the agent checks is the rule without typed values: the page's result passes it by construction.
  return typed === undefined || typed === "unknown" || once === "" ? once : applyRule(once, undefined);
}

function applyRule(url: string, typed: Typed): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "";
  }
  parsed.username = "";
  parsed.password = "";
  // What comes before the path (scheme, host, port) as the URL writes it, for `about:blank` and `file:` too.
  const { origin, emptyQuery, emptyHash } = partsOf(parsed);
  const path = maskPath(parsed.pathname, typed);
  const query = parsed.search === "" ? (emptyQuery ? "?" : "") : `?${maskPairs(parsed.search.slice(1), typed)}`;
  let fragment = emptyHash ? "#" : "";
  const hash = parsed.hash.slice(1);
  if (parsed.hash !== "") {
    const question = hash.indexOf("?");
    if (question >= 0) fragment = `#${maskPath(hash.slice(0, question), typed)}?${maskPairs(hash.slice(question + 1), typed)}`;
    else if (hash.includes("=")) fragment = `#${maskPairs(hash, typed)}`;
    else fragment = `#${maskPath(hash, typed)}`;
  }
  return `${origin}${path}${query}${fragment}`;
}

/**
 * What the agent checks on arrival (it knows no typed value): no credentials, no secret left raw
 * (every secret-named key's value and every secret-shaped value or segment is `*`), markers well
 * formed. Returns why an address is refused, or undefined when it may be kept.
 */
export function urlRefusal(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "it is not a URL";
  }
  if (parsed.username !== "" || parsed.password !== "") return "it carries credentials";
  if (/\*typed-(?![0-9a-f]{12}\*)/.test(url)) return "it carries a malformed typed-value marker";
  if (maskUrl(url) !== url) return "it carries a value that looks like a secret, unmasked";
  return undefined;
}

/** Whether the agent may keep an address as it arrived (`urlRefusal` says why not). */
export function isMaskedUrl(url: string): boolean {
  return urlRefusal(url) === undefined;
}

/**
 * A recorded address as a flow may open it (the compiler's reader of the markers): each typed
 * marker whose reference names a parameter becomes `{{parameter}}`; a query or fragment pair that
 * holds a masked secret or a typed value no parameter stands for is left out (never replayed as
 * `*`). Undefined when the path or fragment route itself holds one: such an address cannot be
 * opened, the clicks that led there must be replayed instead.
 */
export function replayableUrl(recorded: string, parameterOf: (ref: string) => string | undefined): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(recorded);
  } catch {
    return undefined;
  }
  const withParameters = (text: string): string | undefined => {
    let blocked = false;
    const out = text.replace(MARKER, (marker, ref: string | undefined) => {
      const name = ref === undefined ? undefined : parameterOf(ref);
      if (name === undefined) blocked = true;
      return name === undefined ? marker : `{{${name}}}`;
    });
    return blocked ? undefined : out;
  };
  const pairs = (text: string): string =>
    text
      .split("&")
      .map((pair) => withParameters(pair))
      .filter((pair): pair is string => pair !== undefined && pair !== "")
      .join("&");
  const path = withParameters(parsed.pathname);
  if (path === undefined) return undefined;
  const query = parsed.search === "" ? "" : pairs(parsed.search.slice(1));
  let fragment = "";
  const hash = parsed.hash.slice(1);
  if (hash !== "") {
    const question = hash.indexOf("?");
    if (question >= 0) {
      const route = withParameters(hash.slice(0, question));
      if (route === undefined) return undefined;
      const kept = pairs(hash.slice(question + 1));
      fragment = `#${route}${kept === "" ? "" : `?${kept}`}`;
    } else if (hash.includes("=")) {
      const kept = pairs(hash);
      fragment = kept === "" ? "" : `#${kept}`;
    } else {
      const route = withParameters(hash);
      if (route === undefined) return undefined;
      fragment = `#${route}`;
    }
  }
  return `${partsOf(parsed).origin}${path}${query === "" ? "" : `?${query}`}${fragment}`;
}

/** The typed-value references a masked address holds (in the order they appear). */
export function typedRefsOf(url: string): string[] {
  return [...url.matchAll(MARKER)].map((match) => match[1]).filter((ref): ref is string => ref !== undefined);
}

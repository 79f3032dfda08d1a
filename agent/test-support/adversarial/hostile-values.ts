import fc from "fast-check";

/**
 * Values a hostile or broken local client could put where a good one goes: strings built to break
 * paths, parsers and prototypes, JSON values of the wrong type or size, and one of them put into an
 * otherwise good value (`applyMutation`). The requests built from a route's schema are in hostile-input.ts.
 */

/** A canary that lives next to ELNOR_MEMORY, never inside: no answer may ever contain it. */
export const OUTSIDE_CANARY = "CANARY-outside-elnor-memory-5d1f0c";

/** Stand-in for a 10 000-level array; spliced into the JSON text, since building it as a value would only test our own JSON.stringify. */
export const DEEP_MARKER = "\u0000deep-nesting\u0000";
export const DEEP_ARRAY_TEXT = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
export const DEEP_OBJECT_TEXT = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;

const traversalStep = fc.constantFrom(
  "../",
  "..%2f",
  "..%2F",
  "%2e%2e%2f",
  "%2e%2e/",
  ".%2e/",
  "..\\",
  "..%5c",
  "%252e%252e%252f",
  "..%c0%af",
  "....//",
  "．．／",
);
/**
 * Where a `../` aims: the canary beside the memory root, the token, a file that must never appear,
 * and /proc/self/environ (readable, never writable). Nothing a successful escape could damage:
 * these tests run as root on a shared machine.
 */
export const ESCAPE_FILE_NAME = "elnor-fuzz-escape.json";
const traversalTarget = fc.constantFrom(
  "outside/canary.json",
  "outside/canary",
  `outside/${ESCAPE_FILE_NAME}`,
  ESCAPE_FILE_NAME,
  "system/agent/token",
  "",
  "proc/self/environ",
);

/** `../` in its many spellings, 1–8 levels up, aimed at something outside the memory root. */
export const traversal = fc
  .tuple(fc.array(traversalStep, { minLength: 1, maxLength: 8 }), traversalTarget)
  .map(([steps, target]) => `${steps.join("")}${target}`);

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: traversal, weight: 4 },
  { arbitrary: fc.constantFrom("", ".", "..", "~", "/", "\\", "%", "%zz", "%00", "a\u0000b", "\u0000", "nul\u0000.json", "con", "aux.json"), weight: 2 },
  { arbitrary: fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "null", "undefined", "NaN"), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      "/proc/self/environ",
      `/tmp/${ESCAPE_FILE_NAME}`,
      "C:\\Windows\\win.ini",
      "\\\\server\\share",
      "file:///proc/self/environ",
      "$HOME",
      "${HOME}",
      `$(touch /tmp/${ESCAPE_FILE_NAME})`,
      `; touch /tmp/${ESCAPE_FILE_NAME}`,
    ),
    weight: 1,
  },
  { arbitrary: fc.constantFrom(129, 1_000, 5_000, 70_000).map((length) => "a".repeat(length)), weight: 1 },
  { arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }), weight: 2 },
  { arbitrary: fc.constantFrom("\u202eevil", "a\u200bb", "é", "e\u0301", "😀", "\ud800", "ﬀ", "İ", "\r\nx-injected: 1"), weight: 2 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 20 }), weight: 1 },
);

/** Any JSON value of a type a field did not ask for, or one built to hurt. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileString, weight: 4 },
  { arbitrary: fc.constantFrom(null, true, false, 0, -1, 1e308, -0, 2 ** 53 + 1, 1.5), weight: 2 },
  { arbitrary: fc.constantFrom(DEEP_MARKER), weight: 1 },
  { arbitrary: fc.constantFrom(400_000, 1_100_000).map((length) => "x".repeat(length)), weight: 1 },
  { arbitrary: fc.constantFrom([], {}, [[]], [null], { length: 1e9 }, { toString: "x" }), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
);

/**
 * encodeURIComponent that also takes a lone surrogate (which it refuses with a URIError) and
 * writes it as its WTF-8 bytes: malformed UTF-8 the agent's URL decoder has to refuse.
 */
export function percentEncode(text: string): string {
  let out = "";
  for (const char of text) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join("");
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

/** Paths to every value inside a JSON value, the root included. */
function pathsOf(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const here = [at];
  if (Array.isArray(value)) return [...here, ...value.flatMap((item, index) => pathsOf(item, [...at, index]))];
  if (value !== null && typeof value === "object") return [...here, ...Object.entries(value).flatMap(([key, item]) => pathsOf(item, [...at, key]))];
  return here;
}

/** Sets an own, enumerable property even for `__proto__`, so JSON.stringify writes it as a key. */
function defineOwn(target: Record<string | number, unknown>, key: string | number, value: unknown): void {
  // An array's `length` cannot be redefined (and is no JSON key): such a mutation leaves it as it is.
  if (Array.isArray(target) && key === "length") return;
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function cloneJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneJson);
  if (value !== null && typeof value === "object") {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) defineOwn(copy, key, cloneJson(item));
    return copy;
  }
  return value;
}

export type Mutation =
  | { kind: "replace"; pick: number; value: unknown }
  | { kind: "drop"; pick: number }
  | { kind: "extra"; pick: number; key: string; value: unknown }
  | { kind: "none" };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("replace" as const), pick: fc.nat(), value: hostileValue }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constant("drop" as const), pick: fc.nat() }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant("extra" as const),
      pick: fc.nat(),
      key: fc.oneof(
        fc.constantFrom("__proto__", "constructor", "prototype", "polluted", "schema_version", "state", "install_lane"),
        fc.string({ maxLength: 10 }),
      ),
      value: fc.oneof(fc.constant({ polluted: "yes" }), fc.constant({ prototype: { polluted: "yes" } }), hostileValue),
    }),
    weight: 2,
  },
  { arbitrary: fc.constant({ kind: "none" as const }), weight: 1 },
);

/** The value with one mutation applied at one of its paths (chosen by `pick`). */
export function applyMutation(value: unknown, change: Mutation): unknown {
  if (change.kind === "none") return value;
  const copy = cloneJson(value);
  const paths = pathsOf(copy);
  const target = paths[change.pick % paths.length] ?? [];
  if (target.length === 0) {
    if (change.kind === "replace") return change.value;
    if (change.kind === "extra" && copy !== null && typeof copy === "object" && !Array.isArray(copy))
      defineOwn(copy as Record<string, unknown>, change.key, change.value);
    return copy;
  }
  let parent = copy as Record<string | number, unknown>;
  for (const step of target.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = target[target.length - 1] as string | number;
  switch (change.kind) {
    case "replace":
      defineOwn(parent, last, change.value);
      break;
    case "drop":
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      break;
    case "extra": {
      const holder = parent[last];
      if (holder !== null && typeof holder === "object" && !Array.isArray(holder)) defineOwn(holder as Record<string, unknown>, change.key, change.value);
      else defineOwn(parent, change.key, change.value);
      break;
    }
  }
  return copy;
}

/** JSON text of a value; the deep-nesting marker becomes a real 10 000-level array. */
export function toJsonText(value: unknown): string {
  const text = JSON.stringify(value) ?? "null";
  return text.split(JSON.stringify(DEEP_MARKER)).join(DEEP_ARRAY_TEXT);
}

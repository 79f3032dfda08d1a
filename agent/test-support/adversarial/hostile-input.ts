import fc from "fast-check";
import { hostileString, mutation, applyMutation, percentEncode, toJsonText, traversal, DEEP_ARRAY_TEXT, DEEP_OBJECT_TEXT } from "./hostile-values";

/**
 * Requests a hostile or broken local client could send a route, built from the route's own JSON
 * schema: values that follow it (so a request gets past validation and reaches the handler), bodies
 * with one field made hostile or raw attacks on the parser, query strings, path parameters, headers.
 * The hostile values themselves are in hostile-values.ts.
 */

/** The subset of JSON Schema the agent's OpenAPI description uses (zod's JSON Schema output). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  nullable?: boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

/** Ids that exist in the prepared ELNOR_MEMORY, per parameter or field name. */
export type KnownIds = Readonly<Record<string, readonly string[]>>;

/** A value that follows the schema; strings and ids lean towards the prepared ones. */
export function conforming(schema: JsonSchema | undefined, known: KnownIds, field = ""): fc.Arbitrary<unknown> {
  if (schema === undefined || Object.keys(schema).length === 0) return fc.jsonValue({ maxDepth: 2 });
  const plain = conformingNonNull(schema, known, field);
  return schema.nullable === true ? fc.oneof({ arbitrary: plain, weight: 4 }, { arbitrary: fc.constant(null), weight: 1 }) : plain;
}

function conformingNonNull(schema: JsonSchema, known: KnownIds, field: string): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices !== undefined && choices.length > 0) return fc.oneof(...choices.map((choice) => conforming(choice, known, field)));
  if (schema.allOf !== undefined && schema.allOf.length > 0) return conforming(schema.allOf[0], known, field);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object":
      return conformingObject(schema, known);
    case "array": {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.min(schema.maxItems ?? 4, Math.max(minLength, 4));
      return fc.array(conforming(schema.items, known, field), { minLength, maxLength });
    }
    case "string":
      return conformingString(schema, known, field);
    case "integer":
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 });
    case "number":
      return fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function conformingString(schema: JsonSchema, known: KnownIds, field: string): fc.Arbitrary<string> {
  const ids = known[field] ?? [];
  let free: fc.Arbitrary<string>;
  if (schema.format === "uuid") free = fc.uuid();
  else if (schema.format === "date-time")
    free = fc.date({ min: new Date("2020-01-01"), max: new Date("2030-01-01"), noInvalidDate: true }).map((date) => date.toISOString());
  else if (schema.pattern !== undefined) free = patternString(schema.pattern, schema.maxLength);
  else free = fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40), unit: "grapheme-ascii" });
  return ids.length === 0 ? free : fc.oneof({ arbitrary: fc.constantFrom(...ids), weight: 3 }, { arbitrary: free, weight: 1 });
}

function patternString(pattern: string, maxLength: number | undefined): fc.Arbitrary<string> {
  try {
    const matching = fc.stringMatching(new RegExp(pattern), { size: "small" });
    return maxLength === undefined ? matching : matching.filter((text) => text.length <= maxLength);
  } catch {
    return fc.string({ maxLength: 20 });
  }
}

function conformingObject(schema: JsonSchema, known: KnownIds): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const names = Object.keys(properties);
  const record = fc.record(Object.fromEntries(names.map((name) => [name, conforming(properties[name], known, name)])), {
    requiredKeys: names.filter((name) => required.has(name)),
  }) as fc.Arbitrary<Record<string, unknown>>;
  if (names.length === 0 && typeof schema.additionalProperties === "object") {
    return fc.dictionary(fc.string({ maxLength: 12 }), conforming(schema.additionalProperties, known), { maxKeys: 3 });
  }
  return record;
}

/** A body as it goes on the wire: bytes and the content type it claims. */
export interface WireBody {
  label: string;
  contentType: string | undefined;
  text: string;
}

const JSON_TYPES = ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "application/json;charset=UTF-8"];
const OTHER_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=xyz",
  "application/xml",
  "application/json-patch+json",
  "application/jsonx",
  "application/json; charset=utf-16",
  "application/octet-stream",
  "",
  "*/*",
];

/**
 * A request body for a route whose body schema is `schema` (undefined: the route takes none):
 * mostly JSON that follows the schema with one mutation, and the rest raw attacks on the parser.
 */
export function wireBody(schema: JsonSchema | undefined, known: KnownIds, samples: fc.Arbitrary<unknown> | undefined): fc.Arbitrary<WireBody | undefined> {
  const base = samples === undefined ? conforming(schema, known) : fc.oneof(conforming(schema, known), samples);
  const json = (label: string, arbitrary: fc.Arbitrary<unknown>) =>
    fc.tuple(arbitrary, fc.constantFrom(...JSON_TYPES)).map(([value, contentType]): WireBody => ({ label, contentType, text: toJsonText(value) }));
  return fc.oneof(
    { arbitrary: json("valid", base), weight: 3 },
    {
      arbitrary: json(
        "mutated",
        fc.tuple(base, mutation).map(([value, change]) => applyMutation(value, change)),
      ),
      weight: 8,
    },
    { arbitrary: json("random json", fc.jsonValue({ maxDepth: 4 })), weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 1 },
    {
      arbitrary: fc.constantFrom(
        { label: "empty json", contentType: "application/json", text: "" },
        { label: "not json", contentType: "application/json", text: "{not json" },
        { label: "json null", contentType: "application/json", text: "null" },
        { label: "json string", contentType: "application/json", text: '"x"' },
        { label: "json array", contentType: "application/json", text: "[]" },
        { label: "deep array", contentType: "application/json", text: DEEP_ARRAY_TEXT },
        { label: "deep object", contentType: "application/json", text: DEEP_OBJECT_TEXT },
        { label: "proto", contentType: "application/json", text: '{"__proto__":{"polluted":"yes"}}' },
        { label: "constructor", contentType: "application/json", text: '{"constructor":{"prototype":{"polluted":"yes"}}}' },
        { label: "duplicate keys", contentType: "application/json", text: '{"schema_version":1,"schema_version":2}' },
        { label: "bom", contentType: "application/json", text: "\ufeff{}" },
        { label: "trailing garbage", contentType: "application/json", text: "{} trailing" },
        { label: "lone surrogate", contentType: "application/json", text: '{"a":"\\ud800"}' },
      ),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(
          fc.constantFrom(...OTHER_TYPES),
          fc.oneof(
            base.map((value) => toJsonText(value)),
            fc.string({ maxLength: 50 }),
          ),
        )
        .map(([contentType, text]): WireBody => ({ label: "wrong media type", contentType: contentType === "" ? undefined : contentType, text })),
      weight: 2,
    },
  );
}

/** Query strings: the route's own parameters with hostile values, unknown keys, token-looking keys. */
export function queryString(names: readonly string[], known: KnownIds): fc.Arbitrary<string> {
  const key = fc.oneof(
    { arbitrary: names.length === 0 ? fc.constant("page") : fc.constantFrom(...names), weight: 4 },
    {
      arbitrary: fc.constantFrom("__proto__", "constructor", "__proto__[polluted]", "constructor[prototype][polluted]", "page[]", "page[0]", "a.b", ""),
      weight: 2,
    },
    { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
  );
  const value = fc.oneof(
    { arbitrary: fc.constantFrom("1", "0", "-1", "2", "500", "501", "1e309", "NaN", "0x10", " 1", "1.5", "99999999999999999999", "true"), weight: 3 },
    { arbitrary: fc.constantFrom(...Object.values(known).flat(), "x"), weight: 2 },
    { arbitrary: hostileString, weight: 3 },
  );
  const pair = fc
    .tuple(key, value, fc.boolean())
    .map(([name, text, raw]) =>
      raw && /^[\x21-\x7e]*$/.test(name + text) && !/[#&=\s]/.test(name + text) ? `${name}=${text}` : `${percentEncode(name)}=${percentEncode(text)}`,
    );
  return fc.oneof(
    { arbitrary: fc.constant(""), weight: 1 },
    { arbitrary: fc.array(pair, { minLength: 1, maxLength: 5 }).map((pairs) => `?${pairs.join("&")}`), weight: 6 },
    { arbitrary: fc.constantFrom("?", "?&&", "?=", "?page", "?page=1&page=2", "?%", "?a=%zz", `?${"p=1&".repeat(2_000)}`), weight: 1 },
  );
}

/**
 * A path parameter: a prepared id most of the time (so the rest of the request is tested against
 * a real record), else a fresh uuid or something built to escape a path.
 */
export function pathParam(name: string, known: KnownIds): fc.Arbitrary<string> {
  const ids = known[name] ?? [];
  const encoded = fc.oneof(hostileString, fc.uuid()).map(percentEncode);
  // Raw: sent as typed, `/` and `..` included, for the values an HTTP parser lets through at all.
  const raw = fc.oneof(traversal, hostileString).filter((text) => /^[\x21-\x7e]*$/.test(text) && !/[?#]/.test(text));
  return fc.oneof(
    ...(ids.length === 0 ? [] : [{ arbitrary: fc.constantFrom(...ids), weight: 4 }]),
    { arbitrary: encoded, weight: 3 },
    { arbitrary: raw, weight: 3 },
  );
}

/** Headers a client might add besides the ones that make it a good client. */
export const extraHeaders: fc.Arbitrary<Array<[string, string]>> = fc.array(
  fc
    .oneof(
      fc.tuple(
        fc.constantFrom(
          "last-event-id",
          "x-boundary-source",
          "accept",
          "accept-encoding",
          "x-forwarded-host",
          "x-forwarded-for",
          "forwarded",
          "x-http-method-override",
          "referer",
          "cookie",
          "x-requested-with",
          "if-none-match",
          "range",
        ),
        fc.oneof(hostileString, fc.constantFrom("1", "evil.example", "user_click", "hotkey", "DELETE", "bytes=0-1", "*/*", "gzip, br")),
      ),
      fc.tuple(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), fc.string({ maxLength: 40, unit: "grapheme-ascii" })),
    )
    .map(([name, value]): [string, string] => [name, value.replace(/[^\x20-\x7e]/g, "?")]),
  { maxLength: 4 },
);

/**
 * An Origin now and then (one request in six): a browser page, a foreign or the paired-looking
 * extension. Without pairing, only the pairing route lets an extension Origin through to its handler.
 */
export const originHeader: fc.Arbitrary<string | undefined> = fc.option(
  fc.constantFrom(
    "https://evil.example",
    "null",
    "http://127.0.0.1",
    "chrome-extension://abcdefghijklmnopabcdefghijklmnop",
    "chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba",
    "chrome-extension://abpbghplanmjabcplfpadbfdnapcaoij",
  ),
  { freq: 5, nil: undefined },
);

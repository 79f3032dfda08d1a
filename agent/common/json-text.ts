import type { z } from "zod";

/**
 * A JSON file's text checked against its schema; `undefined` when there is no text, it is not
 * JSON, or it does not match. For files the agent wrote itself and reads back leniently (a
 * skill's draft files, an installed skill's tests), where a bad file means "none", not an error.
 */
export function parseJsonText<S extends z.ZodType>(text: string | undefined, schema: S): z.infer<S> | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

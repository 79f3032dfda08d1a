import { z } from "zod";

const Name = z.string().max(200);

/**
 * The browser_snapshot adapter's structural view of a page (§0C.22, issue #4): what is on it,
 * never what was typed into it. Field entries carry labels and types only; page text is limited
 * to headings, landmark, dialog, button and link names. Serialized, it must fit in 32 KB.
 */
export const PageSnapshotSchema = z.object({
  url: z.string().max(2048),
  title: z.string().max(200),
  headings: z.array(z.object({ level: z.number().int().min(1).max(6), text: Name })).max(60),
  landmarks: z.array(z.object({ role: z.string().max(40), name: Name.optional() })).max(40),
  dialogs: z.array(z.object({ name: Name.optional(), open: z.boolean() })).max(10),
  forms: z
    .array(
      z.object({
        name: Name.optional(),
        fields: z.array(z.object({ label: Name.optional(), type: z.string().max(40), required: z.boolean() })).max(60),
      }),
    )
    .max(20),
  buttons: z.array(Name).max(80),
  links: z.array(Name).max(80),
  /** Short status or alert text (role=status/alert, output) — how a page says "Order placed". */
  status_messages: z.array(Name).max(20),
  /**
   * Lists, tables and grids (issue #14): how many items each shows and how many of them are checked
   * or selected — never the items' text, which may show what was typed. What proves that adding,
   * removing or ticking worked. Absent in snapshots taken before #14.
   */
  lists: z
    .array(
      z.object({
        name: Name.optional(),
        role: z.string().max(40),
        items: z.number().int().min(0),
        checked: z.number().int().min(0),
      }),
    )
    .max(8)
    .optional(),
  /**
   * Controls with a state a person sets (checkbox, radio, switch, pressed, expanded, selected tab,
   * sorted column). One in a list's row is known by the row's position (`row`, 1-based) and the row's
   * text (`row_text`, scrubbed of typed values like every text here, at most 80 characters), never
   * by its own name; others by their name. The text finds a row again when the list is drawn anew
   * or sorted (issue #35: a finished item moved last).
   */
  toggles: z
    .array(
      z.object({
        name: Name.optional(),
        role: z.string().max(40),
        state: z.string().max(40),
        row: z.number().int().min(1).optional(),
        row_text: z.string().max(80).optional(),
      }),
    )
    .max(40)
    .optional(),
  /** Short visible texts with a number in them (a counter, "2 items left"), outside fields and lists. */
  texts: z.array(Name).max(20).optional(),
  /** Names of buttons and links shown only while the pointer is over (or focus is inside) something: never evidence. */
  hover_revealed: z.array(Name).max(40).optional(),
  schema_version: z.literal(1),
});
export type PageSnapshot = z.infer<typeof PageSnapshotSchema>;

export const PAGE_SNAPSHOT_MAX_BYTES = 32 * 1024;

/** `before_state_ref` / `after_state_ref` point at snapshots by content hash. */
export const SNAPSHOT_REF_PREFIX = "snapshot:";
export const SnapshotRefSchema = z.string().regex(/^snapshot:[0-9a-f]{64}$/);

/**
 * JSON with object keys sorted at every level: the form a snapshot is hashed in, so the content
 * script and the agent compute the same `snapshot:<sha256>` whatever order keys were built in.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
}

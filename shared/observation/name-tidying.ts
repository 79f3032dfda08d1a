/**
 * Issue #35 "Names": the name a person would say for a control, from its accessible name. Pages
 * put more than the name into it: an access-key hint ("Search [F]", "Save [Alt+Shift+S]"), icon
 * glyphs from an icon font or symbol characters, a counter ("Inbox (3)", "Notifications 5"), or the
 * same words twice (an icon's label and the visible text: "Insert Insert").
 *
 * Only for what a person reads (step labels, parameter names, a skill's guidance): selectors and
 * checks keep the name as the browser computes it, or they would not find the control.
 */

const MODIFIER = "(?:alt|shift|ctrl|control|cmd|command|meta|option|opt|win|⌥|⇧|⌘|⌃)";
/** "[F]", "[alt-shift-f]", "(Ctrl+S)", "[⌘K]": a key, with or without modifiers, in brackets. */
const ACCESS_KEY = new RegExp(`\\s*[[(]\\s*(?:${MODIFIER}\\s*[-+]?\\s*)*[\\p{L}\\p{N}]\\s*[\\])]`, "giu");
/** A bracketed key chord with at least one modifier, whatever the key ("[Alt+Shift+Enter]"). */
const KEY_CHORD = new RegExp(`\\s*[[(]\\s*(?:${MODIFIER}\\s*[-+]\\s*)+[\\p{L}\\p{N}]+\\s*[\\])]`, "giu");
/** Private-use characters (icon fonts), pictographs and other symbols, with their joiners and variation selectors. */
// eslint-disable-next-line no-misleading-character-class -- each code point on its own: a variation selector or joiner left alone is a glyph's remnant
const GLYPHS = /[\p{Co}\p{So}\u{FE0E}\u{FE0F}\u{200D}\u{20E3}]/gu;
/** A count in brackets at the end ("Inbox (3)", "Drafts [12]", "Alerts (99+)"). */
const BRACKETED_COUNT = /\s*[[(]\s*\d+\+?\s*[\])]\s*$/u;
/** A bare count after a plural word ("Notifications 5", "Messages 12"): "Page 2" and "Step 3" keep theirs. */
const TRAILING_COUNT = /(\p{L}{2,}s)\s+\d+\+?$/u;

function undoubled(name: string): string {
  const words = name.split(" ");
  if (words.length < 2 || words.length % 2 !== 0) return name;
  const half = words.length / 2;
  const first = words.slice(0, half).join(" ");
  return first.toLowerCase() === words.slice(half).join(" ").toLowerCase() ? first : name;
}

/** The name a person would say, or "" when nothing of it is left (the name was only a hint or an icon). */
export function tidyName(name: string): string {
  let tidy = name.replace(KEY_CHORD, " ").replace(ACCESS_KEY, " ").replace(GLYPHS, " ").replace(/\s+/g, " ").trim();
  tidy = tidy.replace(BRACKETED_COUNT, "").replace(TRAILING_COUNT, "$1").trim();
  // A name that is only punctuation left over ("·", "-") says nothing.
  if (!/[\p{L}\p{N}]/u.test(tidy) && !tidy.includes("•••")) return "";
  return undoubled(tidy);
}

import { SCRUBBED } from "../../../shared/observation/typed-value-scrubber";

/**
 * Page text compared with what the capture kept: typed values scrubbed to `•••`, `{{parameter}}`
 * placeholders, text the capture shortened.
 */

/** `cleanText` ends text it shortened with this (extension/observation/accessible-name.ts). */
const ELLIPSIS = "…";
export function normalize(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A `{{parameter}}` in a success condition's text: the input's value as this run gave it (issue #35). */
const PLACEHOLDER = /\{\{([a-z0-9_]+)\}\}/;

/**
 * Compares page text with captured text. The capture scrubbed typed values to `•••` and the
 * rehearsal types different test values, so `•••` matches any text; `{{parameter}}` matches this
 * run's value of that input (any text when the run has none); a trailing `…` means the capture
 * shortened the text, so it matches as a prefix. Case is ignored (CSS text-transform).
 */
export function textMatcher(expected: string, whole: boolean, values: Readonly<Record<string, string>> = {}): (actual: string) => boolean {
  let text = normalize(expected);
  const shortened = text.endsWith(ELLIPSIS);
  if (shortened) text = text.slice(0, -ELLIPSIS.length).trimEnd();
  const body = patternSource(text, values);
  const pattern = new RegExp(whole ? `^${body}${shortened ? "" : "$"}` : body, "i");
  return (actual) => pattern.test(normalize(actual));
}

/** The regular expression for a captured text: `•••` any text, `{{parameter}}` this run's value of it. */
function patternSource(text: string, values: Readonly<Record<string, string>>): string {
  return text
    .split(new RegExp(PLACEHOLDER.source))
    .map((part, index) => {
      if (index % 2 === 0)
        return part
          .split(SCRUBBED)
          .map((piece) => escapeRegExp(piece))
          .join(".+?");
      const value = values[part];
      return value === undefined || value.trim() === "" ? ".+?" : escapeRegExp(normalize(value));
    })
    .join("");
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Whether an address ends with the route, with `{{parameter}}` as this run's value however the app wrote it in the address (encoded, `+` or `_` for spaces). */
export function routeEndsWith(route: string, expected: string, values: Readonly<Record<string, string>>): boolean {
  if (route.endsWith(expected) || safeDecode(route).endsWith(expected)) return true;
  if (!PLACEHOLDER.test(expected)) return false;
  const pattern = new RegExp(`${patternSource(expected, values)}$`, "i");
  const decoded = safeDecode(route.replace(/\+/g, " "));
  return [route, decoded, decoded.replace(/_/g, " ")].some((candidate) => pattern.test(candidate));
}

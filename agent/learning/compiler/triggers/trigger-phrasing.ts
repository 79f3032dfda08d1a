import type { PageSnapshot } from "../../../../shared/observation/page-snapshot";

/**
 * Trigger phrases a learned skill carries (issue #15): more ways it may be asked for than its
 * title, built at compile time from what the demonstration shows —
 * - the goal as written, and as an assistant is asked for it ("help me …", "can you …");
 * - each part of a goal that does two things ("check out the cart" and "place the order");
 * - the goal on the site's name ("… on Example Shop"), so naming the site finds it;
 * - the goal with the headings and titles of the pages the demonstration passed through
 *   ("… in shopping cart"): the words the site itself uses for the task;
 * - the user's "when to use" lines.
 * Page text is structural (names of headings), never a typed value; headings that look like
 * anything else — digits, e-mail signs, greetings with a name, long sentences — are left out.
 */
export interface TriggerPhrasingInput {
  title: string;
  useConditions: readonly string[];
  /** The host of the first page, when the demonstration was on the web. */
  site: string | undefined;
  pages: ReadonlyArray<{ url: string; title?: string | undefined }>;
  snapshots: ReadonlyMap<string, PageSnapshot>;
}

/** At most this many phrases; a trigger phrase is at most 120 characters (§0C.11A). */
export const MAX_TRIGGERS = 14;
const MAX_HEADING_PHRASES = 6;

const GENERIC_HEADINGS = new Set([
  "home",
  "menu",
  "main menu",
  "navigation",
  "search",
  "search results",
  "settings",
  "sign in",
  "log in",
  "login",
  "account",
  "my account",
  "help",
  "footer",
  "header",
  "main content",
  "skip to content",
]);

function lowerFirst(text: string): string {
  return text.length === 0 ? text : text[0]?.toLowerCase() + text.slice(1);
}

/** A heading or page title worth asking by: a few plain words, nothing that looks like data. */
function headingPhrase(text: string): string | undefined {
  const cleaned = text
    .replace(/\s+/g, " ")
    .replace(/\s[–—|:-]\s.*$/, "")
    .trim();
  if (cleaned.length < 3 || cleaned.length > 60) return undefined;
  if (/[0-9@#$€£%<>{}=]/.test(cleaned)) return undefined;
  if (/^(welcome|hello|hi|hey|dear|thanks|thank you)\b/i.test(cleaned) || cleaned.includes(",")) return undefined;
  const words = cleaned.split(" ");
  if (words.length > 5) return undefined;
  const phrase = cleaned
    .toLowerCase()
    .replace(/[^\p{L}\s'-]/gu, "")
    .trim();
  return phrase.length < 3 || GENERIC_HEADINGS.has(phrase) ? undefined : phrase;
}

/** The site's own name: its page title's last part ("Cart – Example Shop" → "example shop"), else its host. */
function siteName(input: TriggerPhrasingInput): string | undefined {
  const title = input.pages[0]?.title;
  const parts = title?.split(/\s[–—|:-]\s/).map((part) => part.trim()) ?? [];
  const named = headingPhrase(parts.at(-1) ?? "");
  if (named !== undefined && parts.length > 1) return named;
  const host = input.site?.replace(/^www\./, "").replace(/:\d+$/, "");
  if (host === undefined || /^[\d.]+$/.test(host) || host === "localhost") return undefined;
  return host.split(".")[0];
}

/** The phrases, best first, deduplicated, each ≤ 120 characters. */
export function triggerPhrasings(input: TriggerPhrasingInput): string[] {
  const phrase = lowerFirst(input.title.replace(/[.]$/, "").trim());
  const phrases: string[] = [phrase, `help me ${phrase}`, `can you ${phrase}`];
  for (const line of input.useConditions) phrases.push(lowerFirst(line.replace(/^when the user asks to /i, "")));
  const parts = phrase
    .split(/\s*(?:,|;|\band then\b|\bthen\b|\band\b)\s*/)
    .map((part) => part.trim())
    .filter((part) => part.split(" ").length >= 2);
  if (parts.length > 1) phrases.push(...parts);
  const site = siteName(input);
  if (site !== undefined && !phrase.includes(site)) phrases.push(`${phrase} on ${site}`);
  const headings: string[] = [];
  for (const page of input.pages) {
    const fromTitle = headingPhrase(page.title ?? "");
    if (fromTitle !== undefined) headings.push(fromTitle);
  }
  for (const snapshot of input.snapshots.values()) {
    for (const heading of snapshot.headings) {
      const text = headingPhrase(heading.text);
      if (text !== undefined) headings.push(text);
    }
  }
  // A page's heading alone ("notes", "shopping list") names the page, not the task: two skills
  // learned on one site would share it (and fail the trigger collision check), so it rides on the goal.
  phrases.push(
    ...[...new Set(headings)]
      .filter((heading) => heading !== site && !phrase.includes(heading))
      .slice(0, MAX_HEADING_PHRASES)
      .map((heading) => `${phrase} in ${heading}`),
  );
  return [...new Set(phrases.map((text) => text.slice(0, 120)))].filter((text) => text.length > 2).slice(0, MAX_TRIGGERS);
}
